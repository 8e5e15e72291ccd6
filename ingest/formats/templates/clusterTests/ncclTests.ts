// nccl-tests (NVIDIA/nccl-tests, `all_reduce_perf` and its siblings): what an
// operator runs to check a node's or a cluster's collectives before serving on
// them, and pastes beside a server's logs. After the size sweep, the program
// prints two summary lines with no logger: the count of values that came back
// wrong when the data check is on (`-c 1`, the default), and the average bus
// bandwidth, with a verdict when NCCL_TESTS_MIN_BW sets a floor. The program
// exits with EXIT_FAILURE exactly when one of them says FAILED, so that word is
// the test's failure: wrong values are a collective that corrupted data, a
// bandwidth under the floor a fabric slower than the operator requires. The
// test runs on the machines, not as a server's rank: its failure is the
// machine's (`scope: machine`), of class `cluster-test`. `OK`, or no verdict,
// is the test's information.

import { LogKind } from "../../../../domain/kinds.js";
import { cap, type LogTemplate, type TemplateComponent } from "../template.js";

const SOURCE =
  "src/common.cu run(): `PRINT(\"# Out of bounds values : %d %s\\n\", errors[0], errors[0] ? \"FAILED\" : \"OK\")` and `PRINT(\"# Avg bus bandwidth    : %g %s\\n\", bw[0], …)`, then `exit(EXIT_FAILURE)` when either failed (NVIDIA/nccl-tests, index copies; before the `#` comment prefix the lines opened with a space)";

/** The summary's opening: `# ` in current releases, a space in the oldest; then the label. */
function summaryHead(label: string): (line: string, at: number) => boolean {
  return (line, at) => {
    let i = at;
    if (line.charCodeAt(i) === 35 /* # */) i++;
    while (line.charCodeAt(i) === 32) i++;
    return line.startsWith(label, i);
  };
}

const outOfBoundsHead = summaryHead("Out of bounds values : ");
const bandwidthHead = summaryHead("Avg bus bandwidth ");

const templates: LogTemplate[] = [
  {
    id: "ncclTests.wrong_values",
    level: "stdout",
    format: "# Out of bounds values : {n} FAILED — the data check found values a collective got wrong; the test exits with a failure",
    source: SOURCE,
    checked: "✔",
    head: outOfBoundsHead,
    firstChars: "# O",
    pattern: /#? *Out of bounds values : (?<n>\d+) FAILED\s*$/y,
    kind: LogKind.error,
    attrs: { scope: "machine", level: "error", test: "nccl-tests", wrongValues: cap("n", "number"), failureClass: "cluster-test" },
    refine: (ev, g) => {
      ev.attrs!.error = `nccl-tests: ${g.n} value(s) came back wrong from the collective (its data check failed)`;
    },
    samples: ["# Out of bounds values : 8 FAILED", " Out of bounds values : 1024 FAILED"],
  },
  {
    id: "ncclTests.values_ok",
    level: "stdout",
    format: "# Out of bounds values : 0 OK — every value the data check compared was right",
    source: SOURCE,
    checked: "✔",
    head: outOfBoundsHead,
    firstChars: "# O",
    pattern: /#? *Out of bounds values : (?<n>\d+) OK\s*$/y,
    kind: LogKind.message,
    attrs: { level: "info", test: "nccl-tests", wrongValues: cap("n", "number") },
    samples: ["# Out of bounds values : 0 OK"],
  },
  {
    id: "ncclTests.bandwidth_below_floor",
    level: "stdout",
    format: "# Avg bus bandwidth    : {g} FAILED — the average bus bandwidth is under the floor NCCL_TESTS_MIN_BW sets; the test exits with a failure",
    source: SOURCE,
    checked: "✔",
    head: bandwidthHead,
    firstChars: "# A",
    pattern: /#? *Avg bus bandwidth +: (?<bw>[\d.e+-]+) FAILED\s*$/y,
    kind: LogKind.error,
    attrs: { scope: "machine", level: "error", test: "nccl-tests", busBandwidthGBps: cap("bw", "number"), failureClass: "cluster-test" },
    refine: (ev, g) => {
      ev.attrs!.error = `nccl-tests: the average bus bandwidth, ${g.bw} GB/s, is under the floor NCCL_TESTS_MIN_BW sets`;
    },
    samples: ["# Avg bus bandwidth    : 21.4526 FAILED"],
  },
  {
    id: "ncclTests.bandwidth",
    level: "stdout",
    format: "# Avg bus bandwidth    : {g}[ OK] — the average bus bandwidth over the sweep (`OK` when NCCL_TESTS_MIN_BW sets a floor it meets)",
    source: SOURCE,
    checked: "✔",
    head: bandwidthHead,
    firstChars: "# A",
    pattern: /#? *Avg bus bandwidth +: (?<bw>[\d.e+-]+)(?: OK)?\s*$/y,
    kind: LogKind.message,
    attrs: { level: "info", test: "nccl-tests", busBandwidthGBps: cap("bw", "number") },
    samples: ["# Avg bus bandwidth    : 183.297 ", "# Avg bus bandwidth    : 183.297 OK"],
  },
];

export const NCCL_TESTS: TemplateComponent = {
  name: "ncclTests",
  dialect: "engine",
  title: "nccl-tests' summary",
  intro:
    "The two summary lines `NVIDIA/nccl-tests`' programs (`all_reduce_perf`, `alltoall_perf`, …) print after their sweep, with no logger. A count of wrong values with `FAILED`, or an average bus bandwidth with `FAILED` (under NCCL_TESTS_MIN_BW), is the test's failure, exactly when the program exits with one: the machine's `log.error` (`scope: machine`, `test: nccl-tests`, `failureClass: cluster-test`, `wrongValues` or `busBandwidthGBps`). `OK`, or no verdict, is `log.message` at info. The sweep's table rows are not read.",
  templates,
};
