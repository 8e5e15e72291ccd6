// Bundles in the shapes real deployments produce, written by hand (not by the
// fixture generator): kubelet's CRI pod logs with interleaved glog, NCCL and
// thread-death lines, a glog-only transfer-engine file, a traceback-only
// `kubectl logs --previous` capture, Flight Recorder JSON dumps, a router log
// saved with `kubectl logs --timestamps`, and a note pasted from a chat.
// Nothing may be skipped and every line must land in an event's text.

import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { LogKind } from "../../domain/kinds.js";
import { ingest } from "../../ingest/pipeline.js";
import type { SourceSummary } from "../../ingest/sourceSummaries.js";
import { eventTexts } from "../../store/eventText.js";
import { listSources } from "../../store/read/sources.js";
import { eventRows, tempDir, withDb } from "./bundle.js";

const K8S = fileURLToPath(new URL("../../../test/bundles/k8s-mooncake-pod-logs/", import.meta.url));
const PREFILL_POD = "var/log/pods/sglang_sglang-prefill-0_4f1e0c2a-9b8d-4c7e-a6f5-1d2c3b4a5e6f/sglang/0.log";
const DECODE_POD = "var/log/pods/sglang_sglang-decode-0_7a2b9c1d-3e4f-4a5b-8c6d-0e1f2a3b4c5d/sglang/0.log";

function source(sources: SourceSummary[], rel: string): SourceSummary {
  const s = sources.find((x) => x.path.endsWith(rel));
  assert.ok(s, `${rel} not among ${sources.map((x) => x.path).join(", ")}`);
  return s;
}

test("a Kubernetes bundle: every file ingested, each in its wrapper and dialects, nothing skipped", async () => {
  const dir = tempDir("k8s");
  cpSync(K8S, join(dir, "bundle"), { recursive: true });
  const db = join(dir, "incident.db");
  const summary = await ingest({ db, paths: [join(dir, "bundle")] });
  const s = summary.sources;
  assert.deepEqual(
    s.filter((x) => x.status !== "ingested").map((x) => x.path),
    [],
    "no file skipped or refused",
  );
  const shape = (rel: string) => {
    const x = source(s, rel);
    return [x.format, x.wrapper, x.host, x.role];
  };
  assert.deepEqual(shape(PREFILL_POD), ["sglang-log", "cri", "sglang-prefill-0", "prefill"]);
  assert.deepEqual(shape(DECODE_POD), ["sglang-log", "cri", "sglang-decode-0", "decode"]);
  assert.deepEqual(shape("sglang-prefill-0/transfer_engine.INFO"), ["glog", null, "sglang-prefill-0", "prefill"]);
  assert.deepEqual(shape("sglang-prefill-0/previous-tp1.log"), ["text", null, "sglang-prefill-0", "prefill"]);
  assert.deepEqual(shape("sglang-prefill-0/nccl_trace_rank_1.json"), ["flight-recorder", null, "sglang-prefill-0", "prefill"]);
  assert.deepEqual(shape("sglang-router.log"), ["text", "kubectl", "sglang-router", "router"]);
  assert.deepEqual(shape("notes.txt"), ["text", null, null, null]);

  withDb(db, (h) => {
    const rows = eventRows(h);
    const texts = eventTexts(h);
    // Every line of every text file is in exactly one event's text (a partial CRI line joins the line after it).
    for (const src of listSources(h).filter((x) => !x.format.startsWith("flight-recorder"))) {
      const lines = rows.filter((r) => r.source === src.path).reduce((n, r) => n + texts.text(src.id, r.line).split("\n").length, 0);
      assert.equal(lines, src.lines, `${src.path}: ${lines} of ${src.lines} lines in events`);
    }
    const pod = rows.filter((r) => r.source.endsWith(PREFILL_POD));
    assert.deepEqual(
      pod.map((r) => [r.kind, r.tp]),
      [
        [LogKind.message, null], // the FutureWarning and its indented source line: Python's warnings format, level warning
        [LogKind.message, null], // the transfer engine's start-up glog line: level and place read
        [LogKind.message, 0],
        [LogKind.message, 1],
        [LogKind.message, null], // NCCL INFO
        [LogKind.message, null],
        [LogKind.prefillBatch, 0],
        [LogKind.prefillBatch, 1],
        [LogKind.transferTimeout, null], // Mooncake: `Failed to complete transfers after 60 seconds for batch …`
        [LogKind.exception, null], // Mooncake's transfer thread dies (docs/protocol.md §3.3)
        [LogKind.prefillBatch, 0], // two CRI parts, one line
        [LogKind.ncclWarning, null],
      ],
    );
  });

  // A traceback-only capture is one record, of the rank its name gives, with no time: `kubectl logs --previous` dates nothing,
  // so it is timeless, placed before its host's dated lines (the previous container ran before this one), not at their end.
  const previous = source(s, "sglang-prefill-0/previous-tp1.log");
  assert.deepEqual([previous.events, previous.ranks, previous.inferred, previous.first], [1, ["prefill/tp1"], 1, null]);
  assert.match(previous.timeOrigin!, /timeless \(time unknown\), placed in the order before host sglang-prefill-0's first dated line/);
  // glog lines carry no year: the file's own header ("Log file created at: 2026/06/11 …") gives it;
  // the header's lines have no time of their own and take the first glog line's.
  const te = source(s, "sglang-prefill-0/transfer_engine.INFO");
  assert.equal(te.first, "2026-06-11T14:02:09.881234Z");
  assert.equal(te.inferred, 4);
  assert.equal(te.last, "2026-06-11T14:05:40.120034Z");
  // The unparsed shapes say what was not understood, with a count and where to look.
  const notes = source(s, "notes.txt");
  assert.deepEqual(
    notes.unparsedShapes.map((u) => [u.shape, u.count, u.line]),
    [["Pasted from the on-call channel:", 1, 1]],
  );
  const router = source(s, "sglang-router.log");
  // The router's two INFO lines are read but not interpreted; its ERROR line is a failure record.
  assert.equal(router.unparsedShapes.reduce((n, u) => n + u.count, 0), 2);
  withDb(db, (h) => {
    const routerRows = eventRows(h).filter((r) => r.source.endsWith("sglang-router.log"));
    assert.deepEqual(routerRows.map((r) => r.kind), [LogKind.message, LogKind.message, LogKind.error]);
  });
  assert.equal(router.first, "2026-06-11T14:02:05.000000Z");
});
