import { test } from "node:test";
import assert from "node:assert/strict";
import { Evidence } from "../../analyzer/rules/evidence.js";
import { transferStall } from "../../analyzer/rules/transferStall.js";
import { buildIncident } from "./incidentBuilder.js";
import { decodeBatch, decodeTimeout, lines, prefillBatch, sentMetadata } from "./logLines.js";

const ROOM = "8972542885242963296";

test("a decode #transfer-req held at 58 over minutes is a wedge that began at its first line", () => {
  const decode = lines(
    decodeBatch(0, 9),
    decodeBatch(30, 31),
    decodeBatch(60, 58),
    decodeBatch(90, 58),
    decodeBatch(120, 58),
    decodeBatch(150, 58),
    decodeBatch(180, 58),
  );
  const db = buildIncident([{ path: "d0/decode-tp0.log", text: decode, host: "d0" }]);
  const { findings } = transferStall.run({ evidence: new Evidence(db) });
  assert.equal(findings.length, 1);
  const [f] = findings;
  assert.equal(f!.verdict, "violated");
  assert.equal(f!.severity, "high");
  assert.deepEqual(f!.ranks, ["decode/tp0"]);
  assert.deepEqual(f!.witness.map((w) => w.line), [3, 7]);
  assert.equal(f!.tsUs, Date.parse("2026-08-20T10:01:00Z") * 1000);
  assert.match(f!.explanation, /#transfer-req: 58 on 5 consecutive batch lines/);
});

test("a last prefill batch line with #inflight-req 12 followed by minutes of silence is a frozen gauge", () => {
  const prefill = lines(prefillBatch(0, 3), prefillBatch(5, 12));
  const decode = lines(sentMetadata(10, 0, ROOM), decodeTimeout(310, 0, "9f2c01", ROOM));
  const db = buildIncident([
    { path: "p0/prefill-tp0.log", text: prefill, host: "p0" },
    { path: "d0/decode-tp0.log", text: decode, host: "d0" },
  ]);
  const { findings } = transferStall.run({ evidence: new Evidence(db) });
  const wedge = findings.find((f) => f.title.startsWith("Transfer path wedged"));
  assert.ok(wedge, "a wedge finding");
  assert.deepEqual(wedge.ranks, ["prefill/tp0"]);
  assert.match(wedge.explanation, /#inflight-req: 12 .*then no batch line for 305 s/);
  assert.deepEqual(wedge.witness.map((w) => w.text.includes("Decode transfer failed")), [false, true]);
});

test("rooms past the WaitingForInput timeout are reported with the line that started them", () => {
  const decode = lines(
    decodeBatch(0, 2),
    sentMetadata(10, 0, ROOM),
    sentMetadata(11, 0, "5830149913321"),
    decodeBatch(20, 1),
    decodeBatch(40, 0),
    decodeTimeout(310, 0, "9f2c01", ROOM),
    decodeTimeout(311, 0, "9f2c02", "5830149913321"),
  );
  const db = buildIncident([{ path: "d0/decode-tp0.log", text: decode, host: "d0" }]);
  const { findings } = transferStall.run({ evidence: new Evidence(db) });
  assert.equal(findings.length, 1);
  const [f] = findings;
  assert.equal(f!.room, ROOM);
  assert.match(f!.title, /^2 room\(s\) timed out \(2 in KVPoll.WaitingForInput\)/);
  assert.deepEqual(f!.witness.map((w) => w.line), [2, 6]);
  assert.deepEqual(f!.facts?.rooms, [ROOM, "5830149913321"]);
});

test("moving gauges and no timeout are consistent; no gauge at all is undetermined", () => {
  const moving = lines(decodeBatch(0, 9), decodeBatch(30, 12), decodeBatch(60, 4), decodeBatch(90, 0), decodeBatch(120, 3));
  const ok = transferStall.run({ evidence: new Evidence(buildIncident([{ path: "d0/decode-tp0.log", text: moving }])) });
  assert.deepEqual(ok.findings.map((f) => f.verdict), ["consistent"]);
  assert.equal(ok.checked, 5);

  const bare = lines("[2026-08-20 10:00:00] Fetched bootstrap info: {} for DP 0 CP 0 TP 0 PP 0");
  const none = transferStall.run({ evidence: new Evidence(buildIncident([{ path: "d0/decode-tp0.log", text: bare }])) });
  assert.equal(none.findings[0]!.verdict, "undetermined");
  assert.ok(none.findings[0]!.missing!.length > 0);
});
