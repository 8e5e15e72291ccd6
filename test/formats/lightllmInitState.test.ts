// LightLLM's API server's report that a child did not start (ingest/formats/templates/engines/lightllmServer.ts:
// lightllm/server/api_server.py main() prints `router init state: … detoken init state: …` with print() when either
// state is not `init ok`, then exits with status 1; SGLang's first releases print the two states on two lines). The
// first test's lines are the working half's lightllm-39-a as pasted (ModelTC/LightLLM#39); the others are written by
// hand from the print calls.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines } from "./sglangHarness.js";

test("LightLLM's one-line report of a router that failed to start is the server's start-up failure", () => {
  const { events } = parseLines([
    "Using a slow tokenizer. This might cause a significant slowdown. Consider using a fast tokenizer instead.",
    "Process Process-1:",
    "router init state: 'NoneType' object has no attribute 'get' detoken init state: init ok",
  ]);
  const report = events.at(-1)!;
  assert.equal(report.kind, LogKind.error);
  assert.deepEqual(
    [report.attrs?.level, report.attrs?.routerState, report.attrs?.detokenState, report.attrs?.failureClass],
    ["error", "'NoneType' object has no attribute 'get'", "init ok", "other"],
  );
  assert.equal(report.attrs?.error, "server start-up failed (router: 'NoneType' object has no attribute 'get')");
});

test("SGLang's two-line form: each line is read, the failed child named by its state", () => {
  const { events, issues } = parseLines(["router init state: init ok", "detoken init state: [Errno 98] Address already in use"]);
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.error]),
    [
      [LogKind.error, "server start-up failed"],
      [LogKind.error, "server start-up failed (detokenizer: [Errno 98] Address already in use)"],
    ],
  );
});

test("both children failed: both are named", () => {
  const { events } = parseLines(["router init state: CUDA out of memory detoken init state: Connection refused"]);
  assert.equal(events[0]!.attrs?.error, "server start-up failed (router: CUDA out of memory; detokenizer: Connection refused)");
});

test("lookalikes are not the report: other words before it, or another state's name", () => {
  const { events } = parseLines(["the router init state: init ok", "router state: init ok", "detokenizer init state: init ok"]);
  assert.ok(events.every((e) => e.attrs?.routerState === undefined && e.attrs?.detokenState === undefined));
});
