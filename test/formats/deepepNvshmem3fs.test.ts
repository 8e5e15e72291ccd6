// The lines DeepSeek-style deployments print beside SGLang's (SGLang with DeepEP
// expert parallelism over NVSHMEM, 3FS under HiCache): DeepEP's kernel timeouts
// (ingest/formats/templates/engines/deepep.ts), NVSHMEM's error macros
// (ingest/formats/log/dialects/nvshmemHead.ts) and 3FS's log prefix and admin_cli error
// (ingest/formats/log/dialects/threeFsHead.ts, templates/engines/threeFs.ts). Lines written in the
// exact shape the sources print, and lines pasted into public threads (the
// working half of test/corpus: deepseek-ai/DeepEP#137, #17, #158,
// sgl-project/sglang#12533, deepseek-ai/3FS#184).

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines, parseOne, us } from "./sglangHarness.js";

test("DeepEP: a kernel's timeout print is a stalled collective on the rank it names; the test's progress lines are its information (templates/clusterTests/deepepTests.ts)", () => {
  const { events } = parseLines([
    "[config] num_tokens=4096, hidden=7168, num_topk_groups=4, num_topk=8",
    "[testing] Running with BF16, without top-k (async=False, previous=False) ... passed",
    "DeepEP dispatch NVL receiver timeout, channel: 11, RDMA: 1, nvl: 4, src RDMA: 0, src nvl: 3, start: 0, end: 0",
    "DeepEP dispatch NVL receiver timeout, channel: 5, RDMA: 0, nvl: 2, src NVL: 7, head: 16, tail: 16",
  ]);
  assert.deepEqual(events.map((e) => e.kind), [LogKind.message, LogKind.message, LogKind.watchdog, LogKind.watchdog]);
  assert.deepEqual(events[2]!.attrs, { backend: "deepep", report: "timeout", kernel: "internode", op: "dispatch", stage: "dispatch NVL receiver", channel: 11, rdmaRank: 1, nvlRank: 4, rank: 12 });
  assert.equal(events[3]!.attrs?.rank, 2);
});

test("DeepEP: the coordinator's earlier form (9fe9021 to bc118b2) is read with the same ranks", () => {
  const ev = parseOne("DeepEP RDMA sender coordinator timeout, channel: 7, IB: 1, nvl 2, dst IB: 0, tail 128, num_tokens_to_send 64");
  assert.equal(ev.kind, LogKind.watchdog);
  assert.deepEqual([ev.attrs?.stage, ev.attrs?.rdmaRank, ev.attrs?.nvlRank, ev.attrs?.rank], ["RDMA sender coordinator", 1, 2, 10]);
});

test("DeepEP: the host's exception after a timeout is an exception of class timeout", () => {
  const ev = parseOne("RuntimeError: DeepEP error: timeout (dispatch CPU)");
  assert.equal(ev.kind, LogKind.exception);
  assert.equal(ev.attrs?.failureClass, "timeout");
});

test("NVSHMEM: every error macro's shape is NVSHMEM's transport error, its place the file's base name and line", () => {
  const { events } = parseLines([
    "/opt/nvshmem/nvshmem/src/modules/transport/ibgda/ibgda.cpp:1889: NULL value cannot allocate mlx5dv_devx_uar",
    "/build/nvshmem/src/host/transport/transport.cpp:434: non-zero status: 7 connect EPS failed ",
    "/build/nvshmem/src/host/init/init.cu:nvshmemi_setup_local_heap:158: Bad device pointer callback registered 0x5555. Skipping",
    "/build/nvshmem/src/modules/transport/ibgda/ibgda.cpp:2060: error status: 0 srq creation failed",
    "/build/nvshmem/src/host/bootstrap/bootstrap.cpp:258: non-zero status: 7: No such file or directory, exiting... bootstrap finalization returned error",
  ]);
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.engine, e.attrs?.source]), [
    [LogKind.transportError, "nvshmem", "ibgda.cpp:1889"],
    [LogKind.transportError, "nvshmem", "transport.cpp:434"],
    [LogKind.transportError, "nvshmem", "init.cu:158"],
    [LogKind.transportError, "nvshmem", "ibgda.cpp:2060"],
    [LogKind.transportError, "nvshmem", "bootstrap.cpp:258"],
  ]);
  assert.equal(events[0]!.attrs?.error, "NULL value cannot allocate mlx5dv_devx_uar");
  assert.equal(events[0]!.attrs?.failureClass, "transport");
  assert.equal(events[4]!.attrs?.fatal, true);
  assert.equal(events[1]!.attrs?.fatal, undefined);
});

test("NVSHMEM: a path that does not name it is NVSHMEM's only with its macro's words after one of its files", () => {
  const { events } = parseLines([
    "/usr/src/app/ibgda.cpp:3005: non-zero status: 7 ibgda_rc_init2rtr failed on RC #0.",
    "/usr/src/app/main.cpp:12: non-zero status: 7 something",
    "/usr/src/app/ibgda.cpp:40: opened the device",
  ]);
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.engine]), [
    [LogKind.transportError, "nvshmem"],
    [LogKind.unparsed, undefined],
    [LogKind.unparsed, undefined],
  ]);
});

test("NVSHMEM: several ranks' prints run together are each read; its WARN print is a warning", () => {
  const { events } = parseLines([
    "/root/nvshmem_src/src/modules/transport/ibgda/ibgda.cpp:1345: non-zero status: 121 /root/nvshmem_src/src/modules/transport/ibgda/ibgda.cpp:3005: non-zero status: 7",
    "/root/nvshmem_src/src/host/init/init.cu:1001: non-zero status: 7",
    "",
    "WARN: Failed to initialize all selected devices. Perf may be limited.",
  ]);
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.source ?? e.attrs?.level]), [
    [LogKind.transportError, "ibgda.cpp:1345"],
    [LogKind.transportError, "init.cu:1001"],
    [LogKind.message, "warning"],
  ]);
});

test("3FS: its prefix dates the line by its own offset and gives the level and place; an error-level line is 3FS's failure", () => {
  const { events } = parseLines([
    "[2025-03-17T06:24:08.645087944+00:00 CliConn1: 2023 IBConnect.cc:727 DEBUG] IBSocket [connect RDMA://192.168.211.25:8000] init socket buffers.",
    "[2025-03-17T14:24:09.000001000+08:00 :12345 StorageClient.cc:301 ERROR] read chunk failed: StorageClientCode::kTimeout",
    "[2025-03-17T14:24:09.100000000+08:00 Worker3:  412 MgmtdClient.cc:88 WARNING] refresh routing info failed, will retry",
  ]);
  assert.deepEqual(events.map((e) => [e.kind, e.tsUs, e.attrs?.source]), [
    [LogKind.message, us("2025-03-17T06:24:08.645087Z"), "IBConnect.cc:727"],
    [LogKind.transportError, us("2025-03-17T06:24:09.000001Z"), "StorageClient.cc:301"],
    [LogKind.message, us("2025-03-17T06:24:09.100000Z"), "MgmtdClient.cc:88"],
  ]);
  assert.equal(events[0]!.attrs?.level, "debug");
  assert.equal(events[1]!.attrs?.engine, "3fs");
  assert.equal(events[1]!.attrs?.error, "read chunk failed: StorageClientCode::kTimeout");
  assert.equal(events[2]!.attrs?.level, "warning");
});

test("3FS: admin_cli's failed command is 3FS's failure, with its status code and name", () => {
  const ev = parseOne("Encounter error: 6004(MgmtdClient::RoutingInfoNotReady)");
  assert.equal(ev.kind, LogKind.transportError);
  assert.equal(ev.attrs?.engine, "3fs");
  assert.equal(ev.attrs?.statusCode, 6004);
  assert.equal(ev.attrs?.statusName, "MgmtdClient::RoutingInfoNotReady");
});
