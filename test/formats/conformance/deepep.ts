// DeepEP's kernel timeout lines (deepseek-ai/DeepEP, ingest/formats/templates/engines/deepep.ts),
// printed by the device's `printf` with no prefix. The expectations are written by
// hand from the format strings: `rank` is the EP rank the line prints, or on the
// internode lines RDMA rank × 8 (NUM_MAX_NVL_PEERS) + NVL rank.

import { LogKind } from "../../../domain/kinds.js";
import type { EngineConformanceRow } from "./row.js";

const stalled = (attrs: Record<string, unknown>) => ({ kind: LogKind.watchdog, attrs: { backend: "deepep", report: "timeout", ...attrs } });

export const DEEPEP_ROWS: EngineConformanceRow[] = [
  { template: "deepep.intranode_timeout", expect: stalled({ kernel: "intranode", op: "dispatch", stage: "dispatch receivers", rank: 3, channel: 5 }) },
  { template: "deepep.intranode_timeout", sample: 1, expect: stalled({ op: "combine", stage: "combine senders", rank: 0, channel: 11 }) },
  { template: "deepep.internode_dispatch_timeout", expect: stalled({ kernel: "internode", op: "dispatch", stage: "dispatch NVL receiver", channel: 0, rdmaRank: 1, nvlRank: 6, rank: 14 }) },
  { template: "deepep.internode_dispatch_timeout", sample: 1, expect: stalled({ stage: "dispatch forwarder", check: "RDMA meta", channel: 2, rdmaRank: 0, nvlRank: 3, rank: 3 }) },
  { template: "deepep.internode_dispatch_timeout", sample: 2, expect: stalled({ op: "dispatch", stage: "RDMA sender coordinator", channel: 7, rdmaRank: 1, nvlRank: 2, rank: 10 }) },
  { template: "deepep.internode_combine_timeout", expect: stalled({ op: "combine", stage: "combine forwarder (NVL check)", channel: 3, rdmaRank: 0, nvlRank: 5, rank: 5 }) },
  { template: "deepep.internode_combine_timeout", sample: 1, expect: stalled({ stage: "combine RDMA receiver", channel: 9, rdmaRank: 1, nvlRank: 0, rank: 8 }) },
  { template: "deepep.low_latency_timeout", expect: stalled({ kernel: "low_latency", op: "dispatch", stage: "dispatch receive", rank: 5, localExpert: 2, srcRank: 12 }) },
  { template: "deepep.low_latency_timeout", sample: 1, expect: stalled({ op: "barrier", stage: "barrier", rank: 0, dstRank: 9 }) },
  { template: "deepep.barrier_timeout", expect: stalled({ op: "barrier", rank: 2, thread: 5 }) },
  { template: "deepep.barrier_timeout", sample: 1, expect: stalled({ op: "barrier", rank: 3 }) },
  { template: "deepep.v2_barrier_timeout", expect: stalled({ kernel: "elastic", op: "barrier", stage: "NVLink barrier", rank: 6 }) },
  { template: "deepep.v2_dispatch_timeout", expect: stalled({ op: "dispatch", stage: "notify", rank: 4 }) },
  { template: "deepep.v2_dispatch_timeout", sample: 1, expect: stalled({ op: "dispatch", stage: "hybrid notify (scale-up reduction)" }) },
  { template: "deepep.v2_combine_timeout", expect: stalled({ op: "combine", stage: "combine (scale-out wait all)", channel: 6, scaleoutRank: 1, scaleupRank: 4 }) },
  { template: "deepep.v2_pp_timeout", expect: stalled({ op: "pp", stage: "PP recv" }) },
];

// DeepEP's test programs' prints (ingest/formats/templates/clusterTests/deepepTests.ts), written by hand from
// tests/test_internode.py's and tests/test_low_latency.py's format strings, and from sgl-kernel-npu's tests/python/deepep (test_internode.py,
// utils.py calculate_avg_stats) for its Ascend port: the test's information, at info.
const told = (attrs: Record<string, unknown>) => ({ kind: LogKind.message, attrs: { level: "info", test: "deepep", ...attrs } });

export const DEEPEP_TEST_ROWS: EngineConformanceRow[] = [
  { template: "deepepTests.config", expect: told({ numTokens: 4096, hidden: 7168 }) },
  { template: "deepepTests.config", sample: 1, expect: told({ numTokens: 4096, hidden: 7168 }) },
  { template: "deepepTests.layout", expect: told({ layoutMs: 0.054 }) },
  { template: "deepepTests.case", expect: told({ dtype: "BF16", passed: true }) },
  { template: "deepepTests.case", sample: 1, expect: told({ dtype: "FP8", passed: false }) },
  { template: "deepepTests.tuning", expect: told({ sms: 24 }) },
  { template: "deepepTests.tuning", sample: 1, expect: told({ sms: 24 }) },
  { template: "deepepTests.npu_tuning", expect: told({ phase: "Dispatch", hccsGBps: 35.3, rdmaGBps: 8.8, avgUs: 13283.41 }) },
  { template: "deepepTests.npu_tuning", sample: 1, expect: told({ phase: "Combine", hccsGBps: 52.56, rdmaGBps: 13.24, avgUs: 8832.71 }) },
  { template: "deepepTests.npu_average", expect: told({ phase: "Dispatch", bandwidthGBps: 46.29, avgUs: 634.32 }) },
  { template: "deepepTests.npu_average", sample: 1, expect: told({ phase: "Combine", bandwidthGBps: 54.02, avgUs: 543.55 }) },
  // tests/test_low_latency.py test_main's per-rank prints and test_loop's buffer line.
  { template: "deepepTests.low_latency", expect: told({ epRank: 4, bandwidthGBps: 193.41, avgUs: 114 }) },
  { template: "deepepTests.low_latency", sample: 1, expect: told({ epRank: 2, dispatchGBps: 203.7, combineGBps: 215.93 }) },
  { template: "deepepTests.low_latency", sample: 2, expect: told({ epRank: 0 }) },
  { template: "deepepTests.low_latency_buffer", expect: told({ bufferMB: 2115.111296 }) },
];

// The V2 (elastic) test's bandwidth lines (tests/elastic/test_ep.py), which open with three spaces: printed alone, as
// a pasted block of them is once its common indentation is taken off (after another record they continue it).
export const DEEPEP_V2_TEST_ROWS: EngineConformanceRow[] = [
  { template: "deepepTests.elastic_perf", expect: told({ op: "expanded dispatch", epRank: 4, epRanks: 16, us: 1064 }) },
  { template: "deepepTests.elastic_perf", sample: 1, expect: told({ op: "combine", epRank: 11, epRanks: 16, us: 1387.125 }) },
];
