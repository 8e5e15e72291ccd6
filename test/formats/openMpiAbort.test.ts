// Open MPI's report of an MPI call that failed under a fatal error handler, then the job's abort
// (ingest/formats/log/crash.ts: ompi/errhandler/errhandler_predefined.c backend_abort, each line behind
// opal_output's `[host:pid] `). The first test's lines are the working half's ucx-8049-a, as pasted; the
// second's are written by hand from backend_abort's strings, without the aggregate text's `reported by`
// line and with no function named.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines } from "./sglangHarness.js";

test("the `*** An error occurred in MPI_Isend` banner is the process's abort; its other `***` lines continue it", () => {
  const { events, issues } = parseLines([
    "[node-rtx3080.local:82049] pml_ucx.c:860  Error: ucx send failed: Input/output error",
    "[node-rtx3080:82049] *** An error occurred in MPI_Isend",
    "[node-rtx3080:82049] *** reported by process [2227830785,0]",
    "[node-rtx3080:82049] *** on communicator MPI_COMM_WORLD",
    "[node-rtx3080:82049] *** MPI_ERR_OTHER: known error not in list",
    "[node-rtx3080:82049] *** MPI_ERRORS_ARE_FATAL (processes in this communicator will now abort,",
    "[node-rtx3080:82049] ***    and potentially your MPI job)",
  ]);
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.line, e.kind]),
    [
      [1, LogKind.error],
      [2, LogKind.crash],
    ],
  );
  assert.equal(events[1]!.attrs?.what, "Open MPI aborted the job: an error occurred in MPI_Isend");
  assert.equal(events[1]!.attrs?.fatal, true);
});

test("the banner without the aggregate's `reported by` line, or naming no function, is an abort all the same; another process's `***` line is not its tail", () => {
  const { events } = parseLines([
    "[tyr:21094] *** An error occurred in MPI_Iexscan",
    "[tyr:21094] *** on communicator MPI_COMM_WORLD",
    "[tyr:21094] *** MPI_ERR_INTERN: internal error",
    "[gpu-7:4815] *** An error occurred",
    "[gpu-7:4815] *** on a NULL communicator",
    "[gpu-9:77] *** on communicator MPI_COMM_WORLD",
  ]);
  assert.deepEqual(
    events.map((e) => [e.line, e.kind, e.attrs?.what]),
    [
      [1, LogKind.crash, "Open MPI aborted the job: an error occurred in MPI_Iexscan"],
      [4, LogKind.crash, "Open MPI aborted the job: an MPI call failed"],
      [6, LogKind.unparsed, undefined],
    ],
    "another process's `***` line does not continue gpu-7's banner",
  );
});
