// sgl-kernel-npu's port of DeepEP's tests to Ascend NPUs (ingest/formats/templates/clusterTests/deepepTests.ts,
// `deepepTests.npu_tuning`, `deepepTests.npu_average`; sgl-project/sgl-kernel-npu tests/python/deepep): the first
// test's lines are the working half's sgl-kernel-npu-193-a and sgl-kernel-npu-586-a, as pasted (two servers'
// internode tuning figures; a low-latency case's averages, the Dispatch line ending in a space); the second's are
// written by hand from the other format strings of test_intranode.py and test_normal_alltoall.py, and from lines of
// upstream DeepEP and of other programs that must stay theirs.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines } from "./sglangHarness.js";

test("sgl-kernel-npu's internode tuning figures and low-latency averages are the test's information", () => {
  const { events, issues } = parseLines([
    "[tuning] Dispatch (BF16) 35.30 GB/s (HCCS), 8.80 GB/s (RDMA), avg_t: 13283.41 us, notify_t: 2555.80 us",
    "[tuning] Combine 52.56 GB/s (HCCS), 13.24 GB/s (RDMA), avg_t: 8832.71 us",
    "Average Dispatch bandwidth: 46.29 GB/s, avg_t=634.32 us ",
    "Average Combine bandwidth: 54.02 GB/s, avg_t=543.55 us",
  ]);
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.line, e.kind, e.attrs?.level, e.attrs?.test, e.attrs?.phase]),
    [
      [1, LogKind.message, "info", "deepep", "Dispatch"],
      [2, LogKind.message, "info", "deepep", "Combine"],
      [3, LogKind.message, "info", "deepep", "Dispatch"],
      [4, LogKind.message, "info", "deepep", "Combine"],
    ],
  );
  assert.deepEqual([events[0]!.attrs?.hccsGBps, events[0]!.attrs?.rdmaGBps, events[0]!.attrs?.avgUs], [35.3, 8.8, 13283.41]);
  assert.deepEqual([events[2]!.attrs?.bandwidthGBps, events[2]!.attrs?.avgUs], [46.29, 634.32]);
});

test("the intranode and all-to-all variants read the same; upstream DeepEP's sweep and other words do not", () => {
  const { events } = parseLines([
    "[tuning] Dispatch (BF16) 146.20 GB/s (HCCS), avg_t: 342.18 us",
    "[tuning] Dispatch (int8, raw_bytes=0.147GB) 152.33 GB/s (HCCS), avg_t: 328.41 us",
    "[tuning] Dispatch (quant_type='int8') 98.02 GB/s (HCCS), avg_t: 510.77 us",
    "[tuning] Combine 125.61 GB/s (HCCS), avg_t: 398.26 us",
    "[tuning] SMs 24, NVL chunk 4, RDMA chunk 8: 43.21 GB/s (RDMA), 140.57 GB/s (NVL) ",
    "Average latency of the requests: 12.5 ms",
  ]);
  const npu = events.filter((e) => e.attrs?.hccsGBps !== undefined);
  assert.deepEqual(
    npu.map((e) => [e.line, e.attrs?.phase, e.attrs?.hccsGBps, e.attrs?.rdmaGBps, e.attrs?.avgUs]),
    [
      [1, "Dispatch", 146.2, undefined, 342.18],
      [2, "Dispatch", 152.33, undefined, 328.41],
      [3, "Dispatch", 98.02, undefined, 510.77],
      [4, "Combine", 125.61, undefined, 398.26],
    ],
  );
  const sweep = events.find((e) => e.line === 5)!;
  assert.equal(sweep.attrs?.sms, 24);
  const other = events.find((e) => e.line === 6);
  assert.ok(other === undefined || (other.attrs?.test === undefined && other.attrs?.bandwidthGBps === undefined));
});
