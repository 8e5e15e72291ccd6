// The failures of a DeepSeek-style deployment's other libraries, judged
// (ingest/formats/templates/engines/deepep.ts, ingest/formats/log/dialects/nvshmemHead.ts and
// threeFsHead.ts): DeepEP's kernel timeouts are a stalled collective
// (process-failure, as torch's watchdog is), NVSHMEM's error prints a transport
// failure of the expert-parallel traffic, a 3FS error a failure of HiCache's
// storage (transport-failure, each in its own words). Lines from pastes in the
// working half of test/corpus (deepseek-ai/DeepEP#137, #17, sgl-project/sglang#12533,
// deepseek-ai/3FS#184) and in the shape the sources print.

import { test } from "node:test";
import assert from "node:assert/strict";
import { analyzeLines as report, violated } from "./handBundles.js";


test("DeepEP's kernel timeouts are one stalled collective, high, with DeepEP's own test as the refutation", () => {
  const r = report("internode.log", [
    "[testing] Running with BF16, without top-k (async=False, previous=False) ... passed",
    "DeepEP dispatch NVL receiver timeout, channel: 0, RDMA: 1, nvl: 6, src RDMA: 0, src nvl: 7, start: 0, end: 0",
    "DeepEP dispatch NVL receiver timeout, channel: 1, RDMA: 1, nvl: 4, src RDMA: 0, src nvl: 1, start: 0, end: 0",
  ]);
  const stalls = violated(r, "process-failure");
  assert.equal(stalls.length, 1);
  assert.equal(stalls[0]!.severity, "high");
  assert.match(stalls[0]!.title, /DeepEP dispatch NVL receiver timeout$/);
  assert.match(stalls[0]!.falsify, /DeepEP's own tests/);
});

test("NVSHMEM's error prints are a transport failure of the expert-parallel traffic; its WARN print is none", () => {
  const r = report("nvshmem.log", [
    "WARN: Failed to initialize all selected devices. Perf may be limited.",
    "/root/nvshmem_src/src/modules/transport/ibgda/ibgda.cpp:3005: non-zero status: 7 ibgda_rc_init2rtr failed on RC #0.",
    "/root/nvshmem_src/src/host/transport/transport.cpp:400: non-zero status: 7 connect EPS failed",
  ]);
  const failures = violated(r, "transport-failure");
  assert.ok(failures.length >= 1);
  assert.ok(failures.every((f) => f.explanation.startsWith("Let NVSHMEM carry the expert-parallel traffic")));
  assert.match(failures[0]!.falsify, /NVSHMEM_DEBUG=INFO/);
  assert.deepEqual(report("warn.log", ["WARN: Failed to initialize all selected devices. Perf may be limited."]).findings.filter((f) => f.verdict === "violated"), []);
});

test("a 3FS error is a failure of HiCache's storage; its debug lines are not", () => {
  const debug = "[2025-03-17T06:24:08.645087944+00:00 CliConn1: 2023 IBConnect.cc:727 DEBUG] IBSocket [connect RDMA://192.168.211.25:8000] init socket buffers.";
  const r = report("cli.log", ["Encounter error: 6004(MgmtdClient::RoutingInfoNotReady)", debug]);
  const failures = violated(r, "transport-failure");
  assert.equal(failures.length, 1);
  assert.match(failures[0]!.title, /3FS admin cli: 6004\(MgmtdClient::RoutingInfoNotReady\)/);
  assert.ok(failures[0]!.explanation.startsWith("Let 3FS hold the KV pages HiCache stores"));
  assert.deepEqual(report("debug.log", [debug]).findings.filter((f) => f.verdict === "violated"), []);
});
