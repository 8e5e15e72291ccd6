import { runRule } from "../../analyzer/rules/index.js";
import { test } from "node:test";
import assert from "node:assert/strict";
import { Evidence } from "../../analyzer/rules/evidence.js";
import { transferStall } from "../../analyzer/rules/transferStall.js";
import { buildIncident } from "./incidentBuilder.js";
import { decodeBatch, decodeTimeout, lines, prefillBatch, sentMetadata } from "./logLines.js";

const ROOM = "8972542885242963296";

test("a decode #transfer-req held at 58 over minutes is a wedge that began at its first line", async () => {
  const decode = lines(
    decodeBatch(0, 9),
    decodeBatch(30, 31),
    decodeBatch(60, 58),
    decodeBatch(90, 58),
    decodeBatch(120, 58),
    decodeBatch(150, 58),
    decodeBatch(180, 58),
  );
  const db = await buildIncident([{ path: "d0/decode-tp0.log", text: decode }]);
  const { findings } = runRule(transferStall, new Evidence(db));
  assert.equal(findings.length, 1);
  const [f] = findings;
  assert.equal(f!.verdict, "violated");
  assert.equal(f!.severity, "high");
  assert.deepEqual(f!.ranks, ["decode/tp0"]);
  assert.deepEqual(f!.witness.map((w) => w.line), [3, 7]);
  assert.equal(f!.tsUs, Date.parse("2026-08-20T10:01:00Z") * 1000);
  assert.match(f!.explanation, /#transfer-req: 58 on 5 consecutive batch lines/);
});

test("beside a repeating wedge, a large prefill queue whose batch lines stop is frozen too; a small one going quiet is not", async () => {
  const decode = lines(decodeBatch(0, 9), decodeBatch(30, 58), decodeBatch(90, 59), decodeBatch(150, 58), decodeBatch(210, 60), decodeBatch(270, 58));
  const prefill = lines(prefillBatch(0, 3), prefillBatch(5, 41));
  const wedge = runRule(transferStall, new Evidence(await buildIncident([
    { path: "p0/prefill-tp0.log", text: prefill },
    { path: "d0/decode-tp0.log", text: decode },
  ]))).findings[0]!;
  assert.deepEqual(wedge.ranks, ["prefill/tp0", "decode/tp0"]);
  assert.match(wedge.explanation, /prefill\/tp0's last batch line .*reports #inflight-req: 41 \(p0\/prefill-tp0.log:2\), then no batch line for 265 s/);
  assert.match(wedge.explanation, /decode\/tp0 reports #transfer-req: 58 on 5 consecutive batch lines over 240 s/);

  const idleEnd = lines(prefillBatch(0, 3), prefillBatch(5, 1));
  const calm = runRule(transferStall, new Evidence(await buildIncident([
    { path: "p0/prefill-tp0.log", text: idleEnd },
    { path: "d0/decode-tp0.log", text: lines(decodeBatch(0, 2), decodeBatch(300, 0)) },
  ])));
  assert.deepEqual(calm.findings.map((f) => f.verdict), ["consistent"]);
});

test("rooms past the WaitingForInput timeout are one finding naming every room and rank, with the line that started the first", async () => {
  const decode0 = lines(
    decodeBatch(0, 2),
    sentMetadata(10, 0, ROOM),
    sentMetadata(11, 0, "5830149913321"),
    decodeBatch(20, 1),
    decodeBatch(40, 0),
    decodeTimeout(310, 0, "9f2c01", ROOM),
    decodeTimeout(311, 0, "9f2c02", "5830149913321"),
  );
  const decode1 = lines(decodeTimeout(310, 1, "9f2c01", ROOM));
  const db = await buildIncident([
    { path: "d0/decode-tp0.log", text: decode0 },
    { path: "d0/decode-tp1.log", text: decode1 },
  ]);
  const { findings } = runRule(transferStall, new Evidence(db));
  assert.equal(findings.length, 1, "one cause, one finding");
  const [f] = findings;
  assert.equal(f!.room, ROOM, "the first room leads");
  assert.deepEqual(f!.rooms, [ROOM, "5830149913321"]);
  assert.equal(f!.count, 2);
  assert.equal(f!.title, "2 rooms timed out in KVPoll.WaitingForInput after 300 s on 2 rank(s)");
  assert.deepEqual(f!.ranks, ["decode/tp0", "decode/tp1"]);
  assert.equal(f!.severity, "medium");
  assert.deepEqual(f!.witness.map((w) => w.line), [2, 6, 7], "the first room's start and timeout, then the other room's timeout");
  assert.match(f!.explanation, /The same timeout hit 1 more room\(s\) between .*: 5830149913321\./);
  assert.deepEqual(f!.facts?.rooms, [ROOM, "5830149913321"]);
});

test("moving gauges and no timeout are consistent; with one PD side or no gauge at all it is undetermined", async () => {
  const moving = lines(decodeBatch(0, 9), decodeBatch(30, 12), decodeBatch(60, 4), decodeBatch(90, 0), decodeBatch(120, 3));
  const prefill = lines(prefillBatch(1, 2), prefillBatch(61, 1));
  const ok = runRule(transferStall, new Evidence(await buildIncident([{ path: "n0/decode-tp0.log", text: moving }, { path: "n0/prefill-tp0.log", text: prefill }])));
  assert.deepEqual(ok.findings.map((f) => f.verdict), ["consistent"]);
  assert.equal(ok.checked, 7);
  const decodeOnly = runRule(transferStall, new Evidence(await buildIncident([{ path: "d0/decode-tp0.log", text: moving }])));
  assert.deepEqual(decodeOnly.findings.map((f) => f.verdict), ["undetermined"]);
  assert.match(decodeOnly.findings[0]!.missing!.join("; "), /no prefill source/);

  const bare = lines("[2026-08-20 10:00:00] Fetched bootstrap info: {} for DP 0 CP 0 TP 0 PP 0");
  const none = runRule(transferStall, new Evidence(await buildIncident([{ path: "d0/decode-tp0.log", text: bare }])));
  assert.equal(none.findings[0]!.verdict, "undetermined");
  assert.ok(none.findings[0]!.missing!.length > 0);
});
