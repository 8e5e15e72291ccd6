// NCCL's lines behind a time some pipeline put before them (ingest/formats/log/dialects/dialectHead.ts, the ISO
// reader: a date with no level or logger after it, then NCCL's `host:pid:tid [dev] ` head, src/debug.cc
// ncclDebugLog), and NCCL's warning for a failed CUDA call (ingest/formats/templates/engines/nccl.ts,
// `nccl.cuda_failure`: src/include/cudawrap.h CUCHECK `Cuda failure %d '%s'`, src/include/checks.h CUDACHECK
// `Cuda failure '%s'`). The first test's lines are the working half's nccl-1283-a, as pasted (a Ray actor's tag,
// then the time); the second's are written by hand from the two format strings, and dated lines of other loggers.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines } from "./sglangHarness.js";

test("NCCL's lines behind a Ray tag and a time are NCCL's, at that time; its failed CUDA call is an error", () => {
  const { events, issues } = parseLines([
    "(train_rft pid=2657296) 2024-05-11 14:10:52.224 n176-080-198:2657296:2658229 [0] NCCL INFO Connected all rings",
    "(train_rft pid=2657296) 2024-05-11 14:10:52.224 n176-080-198:2657296:2658230 [1] NCCL INFO Connected all trees",
    "(train_rft pid=2657296) 2024-05-11 14:10:52.224 n176-080-198:2657296:2658229 [0] NCCL INFO Connected all trees",
    "(train_rft pid=2657296) 2024-05-11 14:10:52.224 n176-080-198:2657296:2658230 [1] NCCL INFO threadThresholds 8/8/64 | 16/8/64 | 512 | 512",
    "(train_rft pid=2657296) 2024-05-11 14:10:52.224 n176-080-198:2657296:2658230 [1] NCCL INFO 24 coll channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer",
    "(train_rft pid=2657296) 2024-05-11 14:10:52.224 n176-080-198:2657296:2658229 [0] NCCL INFO threadThresholds 8/8/64 | 16/8/64 | 512 | 512",
    "(train_rft pid=2657296) 2024-05-11 14:10:52.224 n176-080-198:2657296:2658229 [0] NCCL INFO 24 coll channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer",
    "(train_rft pid=2657296) ",
    "(train_rft pid=2657296) 2024-05-11 14:10:52.227 n176-080-198:2657296:2658232 [0] include/alloc.h:102 NCCL WARN Cuda failure 1 'invalid argument'",
  ]);
  assert.deepEqual(issues, []);
  const nccl = events.filter((e) => e.attrs?.ncclLevel !== undefined);
  assert.deepEqual(
    nccl.map((e) => [e.line, e.attrs?.ncclLevel, e.attrs?.cudaDev]),
    [
      [1, "INFO", 0],
      [2, "INFO", 1],
      [3, "INFO", 0],
      [4, "INFO", 1],
      [5, "INFO", 1],
      [6, "INFO", 0],
      [7, "INFO", 0],
      [9, "WARN", 0],
    ],
  );
  const warn = nccl[7]!;
  assert.equal(warn.kind, LogKind.error);
  assert.equal(warn.tsUs, Date.UTC(2024, 4, 11, 14, 10, 52, 227) * 1000, "the time before NCCL's head times the line");
  assert.equal(warn.attrs?.ncclHost, "n176-080-198");
  assert.equal(warn.attrs?.error, "a CUDA call NCCL made failed");
  assert.equal(warn.attrs?.cudaError, 1);
  assert.equal(warn.attrs?.reason, "invalid argument");
  assert.equal(warn.attrs?.failureClass, "nccl");
});

test("a runtime call's failure has no code; a dated line with a level or without NCCL's head stays the logger's", () => {
  const { events } = parseLines([
    "gpu-3:4101:4190 [2] enqueue.cc:1085 NCCL WARN Cuda failure 'out of memory'",
    "2025-01-07 09:15:02.118 gpu-3:4101:4190 [2] include/alloc.h:102 NCCL WARN Cuda failure 2 'out of memory'",
    "2025-01-07 09:15:02,118 INFO gpu-3:4101:4190 [2] NCCL INFO Connected all rings",
    "2025-01-07 09:15:02.118 worker started: rank 2 of 8",
  ]);
  assert.deepEqual(
    events.map((e) => [e.line, e.kind, e.attrs?.ncclLevel, e.attrs?.cudaError, e.attrs?.reason]),
    [
      [1, LogKind.error, "WARN", undefined, "out of memory"],
      [2, LogKind.error, "WARN", 2, "out of memory"],
      [3, LogKind.message, undefined, undefined, undefined],
      [4, LogKind.message, undefined, undefined, undefined],
    ],
    "Python logging's level before NCCL's words makes the line the logger's; a date before plain words is the logger's own",
  );
  assert.equal(events[2]!.attrs?.level, "info");
});
