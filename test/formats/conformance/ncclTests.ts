// nccl-tests' summary rows (ingest/formats/templates/clusterTests/ncclTests.ts), written by hand from
// src/common.cu's two PRINTs: FAILED is the test's failure (it exits with EXIT_FAILURE then), OK or no
// verdict its information.

import { LogKind } from "../../../domain/kinds.js";
import type { EngineConformanceRow } from "./row.js";

export const NCCL_TEST_ROWS: EngineConformanceRow[] = [
  {
    template: "ncclTests.wrong_values",
    expect: {
      kind: LogKind.error,
      attrs: { scope: "machine", level: "error", test: "nccl-tests", wrongValues: 8, failureClass: "cluster-test", error: "nccl-tests: 8 value(s) came back wrong from the collective (its data check failed)" },
    },
  },
  { template: "ncclTests.wrong_values", sample: 1, expect: { kind: LogKind.error, attrs: { wrongValues: 1024, failureClass: "cluster-test" } } },
  { template: "ncclTests.values_ok", expect: { kind: LogKind.message, attrs: { level: "info", test: "nccl-tests", wrongValues: 0 } } },
  {
    template: "ncclTests.bandwidth_below_floor",
    expect: {
      kind: LogKind.error,
      attrs: { scope: "machine", level: "error", busBandwidthGBps: 21.4526, failureClass: "cluster-test", error: "nccl-tests: the average bus bandwidth, 21.4526 GB/s, is under the floor NCCL_TESTS_MIN_BW sets" },
    },
  },
  { template: "ncclTests.bandwidth", expect: { kind: LogKind.message, attrs: { level: "info", test: "nccl-tests", busBandwidthGBps: 183.297 } } },
  { template: "ncclTests.bandwidth", sample: 1, expect: { kind: LogKind.message, attrs: { level: "info", busBandwidthGBps: 183.297 } } },
];
