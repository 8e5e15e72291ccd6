import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { identityFromPath, InputError, offsetMinutesForWallClock, parseTimeZone } from "../../ingest/inputs/pathIdentity.js";
import { ChunkReader, forEachLine, MAX_LINE_BYTES } from "../../ingest/inputs/lines.js";
import { scratchDir } from "../scratchDir.js";

test("host, role and TP rank from the path: <host>/<role>-..., a role-named host directory, tpN / rank_N", () => {
  assert.deepEqual(identityFromPath("bundle/d0/decode-tp3.log"), { host: "d0", role: "decode", tp: 3 });
  assert.deepEqual(identityFromPath("p0/prefill_tp0.log"), { host: "p0", role: "prefill", tp: 0 });
  assert.deepEqual(identityFromPath("incident/decode-0/tp3.log"), { host: "decode-0", role: "decode", tp: 3 });
  assert.deepEqual(identityFromPath("decode-tp3.log"), { role: "decode", tp: 3 });
  assert.deepEqual(identityFromPath("prefill-node/rank_5.stderr"), { host: "prefill-node", role: "prefill", tp: 5 });
  assert.deepEqual(identityFromPath("pods/tp-2/stderr.log"), { tp: 2 });
  assert.deepEqual(identityFromPath("logs/server.log"), {});
  assert.deepEqual(identityFromPath("d0/decoder-notes.txt"), {});
  // A file named for its pod (`kubectl logs sglang-decode-0 > sglang-decode-0.log`): the pod is the host; its ordinal no rank.
  assert.deepEqual(identityFromPath("incident/sglang-decode-0.log"), { host: "sglang-decode-0", role: "decode" });
  // One file per rank of that pod: the rank is the file's, the pod still the host, so its ranks share one clock.
  assert.deepEqual(identityFromPath("pods/sglang-prefill-0_tp3.log"), { host: "sglang-prefill-0", role: "prefill", tp: 3 });
  assert.deepEqual(identityFromPath("pods/sglang-prefill-0.rank-1.stderr"), { host: "sglang-prefill-0", role: "prefill", tp: 1 });
  assert.deepEqual(identityFromPath("pods/node3-decode-tp0.log"), { host: "node3-decode", role: "decode", tp: 0 });
  // kubelet's layout: /var/log/pods/<namespace>_<pod>_<uid>/<container>/0.log.
  assert.deepEqual(identityFromPath("var/log/pods/default_sglang-prefill-1_4f1e0c2a-9b8d-4c7e-a6f5-1d2c3b4a5e6f/sglang/0.log"), {
    host: "sglang-prefill-1",
    role: "prefill",
  });
});

test("--tz: offsets and IANA zones, with daylight saving taken at the log's own date", () => {
  assert.deepEqual(parseTimeZone("+02:00"), { kind: "fixed", minutes: 120 });
  assert.deepEqual(parseTimeZone("-0530"), { kind: "fixed", minutes: -330 });
  assert.deepEqual(parseTimeZone("UTC"), { kind: "fixed", minutes: 0 });
  const berlin = parseTimeZone("Europe/Berlin");
  assert.equal(offsetMinutesForWallClock(berlin, Date.UTC(2026, 7, 20, 10, 15, 32)), 120);
  assert.equal(offsetMinutesForWallClock(berlin, Date.UTC(2026, 0, 20, 10, 15, 32)), 60);
  assert.equal(offsetMinutesForWallClock(parseTimeZone("America/Los_Angeles"), Date.UTC(2026, 7, 20, 10, 0, 0)), -420);
  assert.throws(() => parseTimeZone("Mars/Olympus"), InputError);
  assert.throws(() => parseTimeZone("+25:00"), InputError);
});

function readAll(path: string): { lines: [number, string][]; invalid: boolean; cut: number | undefined } {
  const reader = new ChunkReader(path, undefined, 64 * 1024);
  const lines: [number, string][] = [];
  let invalid = false;
  let cut: number | undefined;
  for (let c = reader.next(); c; c = reader.next()) {
    invalid ||= c.invalidUtf8;
    cut ??= c.cutLine;
    forEachLine(c, (line, no) => lines.push([no, line]));
  }
  reader.close();
  return { lines, invalid, cut };
}

test("lines: CRLF ends stripped, a last line without newline kept, numbering from 1", () => {
  const dir = scratchDir("kvrewind-lines-");
  const p = join(dir, "crlf.log");
  writeFileSync(p, "first\r\nsecond\r\n\r\nlast");
  assert.deepEqual(readAll(p).lines, [
    [1, "first"],
    [2, "second"],
    [3, ""],
    [4, "last"],
  ]);
});

test("lines: invalid UTF-8 is flagged and read as U+FFFD; multi-byte characters across reads stay whole", () => {
  const dir = scratchDir("kvrewind-lines-");
  const bad = join(dir, "bad.log");
  writeFileSync(bad, Buffer.concat([Buffer.from("ok\nbad \xff\xfe here\n", "latin1"), Buffer.from("fin\n")]));
  const r = readAll(bad);
  assert.equal(r.invalid, true);
  assert.deepEqual(r.lines, [
    [1, "ok"],
    [2, "bad \uFFFD\uFFFD here"],
    [3, "fin"],
  ]);
  const wide = join(dir, "wide.log");
  const text = `${"é".repeat(70_000)}\nnext\n`;
  writeFileSync(wide, text);
  const w = readAll(wide);
  assert.equal(w.invalid, false);
  assert.equal(w.lines[0]![1], "é".repeat(70_000));
  assert.deepEqual(w.lines[1], [2, "next"]);
});

test("lines: a 10 MB single line comes through whole", () => {
  const dir = scratchDir("kvrewind-lines-");
  const p = join(dir, "long.log");
  const long = "x".repeat(10 * 1024 * 1024);
  writeFileSync(p, `a\n${long}\nb\n`);
  const r = readAll(p);
  assert.equal(r.cut, undefined);
  assert.deepEqual(
    r.lines.map(([n, l]) => [n, l.length]),
    [
      [1, 1],
      [2, long.length],
      [3, 1],
    ],
  );
  assert.ok(MAX_LINE_BYTES > long.length);
});
