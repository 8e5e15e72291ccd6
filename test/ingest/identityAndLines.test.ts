import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { identityFromPath, InputError, offsetMinutesForWallClock, parseTimeZone } from "../../ingest/inputs/pathIdentity.js";
import { readBundlePaths } from "../../ingest/inputs/machines.js";
import { rotationOf, streamOf } from "../../ingest/inputs/rotation.js";
import { ChunkReader, forEachLine, MAX_LINE_BYTES } from "../../ingest/inputs/lines.js";
import { scratchDir } from "../scratchDir.js";

test("host, role and TP rank from the path: a machine's folder is its host, a file name gives a role and a rank", () => {
  assert.deepEqual(identityFromPath("bundle/d0/decode-tp3.log"), { host: "d0", role: "decode", tp: 3 });
  assert.deepEqual(identityFromPath("p0/prefill_tp0.log"), { host: "p0", role: "prefill", tp: 0 });
  assert.deepEqual(identityFromPath("incident/decode-0/tp3.log"), { host: "decode-0", role: "decode", tp: 3 });
  assert.deepEqual(identityFromPath("prefill-node/rank_5.stderr"), { host: "prefill-node", role: "prefill", tp: 5 });
  assert.deepEqual(identityFromPath("pods/tp-2/stderr.log"), { tp: 2 });
  assert.deepEqual(identityFromPath("logs/server.log"), {});
  // A note in a machine's folder is that machine's.
  assert.deepEqual(identityFromPath("d0/decoder-notes.txt"), { host: "d0" });
  // `sglang-decode.log` names the role; the folder names the machine, so two decode nodes stay two hosts.
  assert.deepEqual(identityFromPath("node-a/sglang-decode.log"), { host: "node-a", role: "decode" });
  assert.deepEqual(identityFromPath("node-b/logs/sglang-decode.log"), { host: "node-b", role: "decode" });
  // No folder: the file's name is all there is (`docker logs sglang-decode-0 > sglang-decode-0.log`); its ordinal is no rank.
  assert.deepEqual(identityFromPath("sglang-decode-0.log"), { host: "sglang-decode-0", role: "decode" });
  assert.deepEqual(identityFromPath("decode-tp3.log"), { host: "decode", role: "decode", tp: 3 });
  // `kubectl logs --previous` saved beside the current log: the container's run before its restart, the same pod.
  assert.deepEqual(identityFromPath("sglang-decode-0-previous.log"), { host: "sglang-decode-0", role: "decode" });
  assert.deepEqual(identityFromPath("previous-sglang-decode-0.log"), { host: "sglang-decode-0", role: "decode" });
  assert.deepEqual(identityFromPath("pods/sglang-prefill-0_tp3.prev.log"), { host: "sglang-prefill-0", role: "prefill", tp: 3 });
  // One file per rank of a pod in a layout folder: the rank is the file's, the pod still the host, so its ranks share one clock.
  assert.deepEqual(identityFromPath("pods/sglang-prefill-0_tp3.log"), { host: "sglang-prefill-0", role: "prefill", tp: 3 });
  assert.deepEqual(identityFromPath("pods/sglang-prefill-0.rank-1.stderr"), { host: "sglang-prefill-0", role: "prefill", tp: 1 });
  // kubelet's layout: /var/log/pods/<namespace>_<pod>_<uid>/<container>/0.log.
  assert.deepEqual(identityFromPath("var/log/pods/default_sglang-prefill-1_4f1e0c2a-9b8d-4c7e-a6f5-1d2c3b4a5e6f/sglang/0.log"), {
    host: "sglang-prefill-1",
    role: "prefill",
  });
  // `oc adm inspect` (OpenShift must-gather): namespaces/<ns>/pods/<pod>/<container>/<container>/logs/, and the pod's own YAML.
  const inspected = "must-gather.local.5218/quay-io-openshift-must-gather-sha256-9f1c/namespaces/llm/pods/sglang-decode-0";
  assert.deepEqual(identityFromPath(`${inspected}/sglang/sglang/logs/current.log`), { host: "sglang-decode-0", role: "decode" });
  assert.deepEqual(identityFromPath(`${inspected}/sglang/sglang/logs/previous.insecure.log`), { host: "sglang-decode-0", role: "decode" });
  assert.deepEqual(identityFromPath(`${inspected}/sglang-decode-0.yaml`), { host: "sglang-decode-0", role: "decode" });
  // Docker's json-file folder: the container by its short id.
  const id = "3f2a9c1b7d4e" + "0".repeat(52);
  assert.deepEqual(identityFromPath(`containers/${id}/${id}-json.log`), { host: "3f2a9c1b7d4e" });
  // A rotated part reads as its live file.
  assert.deepEqual(identityFromPath("d1/decode-tp2.log.3"), { host: "d1", role: "decode", tp: 2 });
  // `kubectl logs <pod> > <pod>.log` of a Deployment's pod that names no role: the pod is the host all the same.
  assert.deepEqual(identityFromPath("dynamo-frontend-7d9c8b6f5-x2kqp.log"), { host: "dynamo-frontend-7d9c8b6f5-x2kqp" });
  assert.deepEqual(identityFromPath("dynamo-frontend-7d9c8b6f5-x2kqp-previous.log"), { host: "dynamo-frontend-7d9c8b6f5-x2kqp" });
  // Words that are no generated name (vowels, the digits 0, 1 and 3 Kubernetes' alphabet leaves out) name no host.
  assert.deepEqual(identityFromPath("notes-summary-final.log"), {});
  assert.deepEqual(identityFromPath("run-20260611-10341.log"), {});
});

test("a folder of pods' logs saved under their names is no machine; a machine's folder is", () => {
  const read = (paths: string[]) => readBundlePaths(paths.map((identityPath) => ({ identityPath, bundle: 0 }))).map((r) => r.host);
  assert.deepEqual(read(["incident/sglang-decode-0.log", "incident/sglang-prefill-0.log"]), ["sglang-decode-0", "sglang-prefill-0"]);
  assert.deepEqual(read(["node-a/sglang-decode.log", "node-a/sglang-prefill.log", "node-b/sglang-decode.log"]), ["node-a", "node-a", "node-b"]);
});

test("rotated parts: the live file they were cut from, oldest first", () => {
  const parts = ["decode.log", "decode.log.1", "decode.log.2.gz", "x.1.log", "x.log-20261204", "x.log-20261203", "0.log.20261204-140000", "server.log.2026-12-04_14-00-00"];
  assert.deepEqual(parts.map((p) => rotationOf(p).live), ["decode.log", "decode.log", "decode.log", "x.log", "x.log", "x.log", "0.log", "server.log"]);
  const order = (names: string[]) => [...names].sort((a, b) => rotationOf(a).order - rotationOf(b).order);
  assert.deepEqual(order(["decode.log", "decode.log.1", "decode.log.2.gz"]), ["decode.log.2.gz", "decode.log.1", "decode.log"]);
  assert.deepEqual(order(["x.log", "x.log-20261204", "x.log-20261203"]), ["x.log-20261203", "x.log-20261204", "x.log"]);
  // A container's run before its restart (`kubectl logs --previous`), marked after the name or before it: the stream's oldest part.
  assert.deepEqual(["sglang-decode-0-previous.log", "x.prev.log", "previous_x.log"].map((p) => rotationOf(p).live), ["sglang-decode-0.log", "x.log", "x.log"]);
  assert.deepEqual(order(["x.log", "x.log.1", "x-previous.log"]), ["x-previous.log", "x.log.1", "x.log"]);
  // Not rotations: a rank's file, kubelet's restart count, a Flight Recorder dump.
  assert.deepEqual(["tp3.log", "1.log", "nccl_trace_rank_1.json", "decode-tp3.log"].map((p) => rotationOf(p).live), ["tp3.log", "1.log", "nccl_trace_rank_1.json", "decode-tp3.log"]);
  assert.equal(streamOf("bundle.tgz:d0/decode.log.2.gz"), "bundle.tgz:d0/decode.log");
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
