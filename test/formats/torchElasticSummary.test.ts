// torchrun's elastic agent's failure summary (ingest/formats/templates/platform/torchElastic.ts:
// ChildFailedError.format_msg's _MSG_FORMAT_TEMPLATE, torch/distributed/elastic/multiprocessing/errors/__init__.py).
// The first test's lines are the working half's pytorch-121209-a, as pasted (the window starts inside
// rank 1's entry); the second's are written by hand from the template, with a worker killed by a signal.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines } from "./sglangHarness.js";

const ENTRY_TAIL = ["  exitcode  : 1 (pid: 69811)", "  error_file: <N/A>", "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"];

test("the summary's `Root Cause (first observed failure):` line is the group's failure; the entries under it are not read", () => {
  const { events, issues } = parseLines([
    "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
    "------------------------------------------------------------",
    "Root Cause (first observed failure):",
    "[0]:",
    "  time      : 2024-03-05_07:01:51",
    "  host      : vmnuvocinpoc.internal.cloudapp.net",
    "  rank      : 0 (local_rank: 0)",
    ...ENTRY_TAIL,
    "============================================================",
  ]);
  assert.deepEqual(issues, []);
  const crash = events.find((e) => e.kind === LogKind.crash);
  assert.ok(crash !== undefined);
  assert.equal(crash.line, 3);
  assert.deepEqual([crash.attrs?.fatal, crash.attrs?.failureClass], [true, "crash"]);
  assert.equal(crash.tp, undefined, "torchrun's rank is not the line's TP rank");
  assert.deepEqual(
    events.filter((e) => e.line !== 3).map((e) => [e.line, e.kind]),
    [
      [1, LogKind.unparsed],
      [2, LogKind.unparsed],
      [4, LogKind.unparsed],
    ],
    "the entry's fields and the closing rule continue the `[0]:` record",
  );
});

test("a worker killed by a signal is summarised the same way; the older `Root Cause:` heading and the words in prose are not this line", () => {
  const { events } = parseLines([
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
    "============================================================",
    "serve.py FAILED",
    "------------------------------------------------------------",
    "Failures:",
    "  <NO_OTHER_FAILURES>",
    "------------------------------------------------------------",
    "Root Cause (first observed failure):",
    "[0]:",
    "  exitcode  : -9 (pid: 208585)",
    "  traceback : Signal 9 (SIGKILL) received by PID 208585",
    "Root Cause:",
    "Root Cause (first observed failure): see the worker's log",
  ]);
  assert.deepEqual(
    events.filter((e) => e.kind === LogKind.crash).map((e) => e.line),
    [8],
  );
  assert.equal(events.find((e) => e.line === 12)?.kind, LogKind.unparsed);
  assert.equal(events.find((e) => e.line === 13)?.kind, LogKind.unparsed);
});
