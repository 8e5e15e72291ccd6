// Two shapes a log takes on its way into a ticket, written by hand:
//   - a paste hard-wrapped at a fixed width (a commit message, an e-mail), the
//     rest of a long record on lines with no prefix (ingest/formats/log/hardWrap.ts);
//   - Python 3.11's exception groups, whose tracebacks CPython's traceback
//     module draws behind a `| ` margin (ingest/formats/log/exceptionGroup.ts).
// The NCCL watchdog's text is ProcessGroupNCCL.cpp's (torch 2.2–2.4); the
// group is the one uvicorn logs when a request's task group fails.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { brokeBefore, wrapOf } from "../../ingest/formats/log/hardWrap.js";
import { parseLines } from "./sglangHarness.js";

/** A greedy fill at `width` columns, as GNU fmt and git's editors wrap a paragraph. */
function fill(line: string, width: number): string[] {
  const out: string[] = [];
  let current = "";
  for (const word of line.split(" ")) {
    if (current === "") current = word;
    else if (current.length + 1 + word.length <= width) current += " " + word;
    else {
      out.push(current);
      current = word;
    }
  }
  out.push(current);
  return out;
}

const WATCHDOG =
  "[E329 19:15:11.775879730 ProcessGroupNCCL.cpp:565] [Rank 3] Watchdog caught collective operation timeout: " +
  "WorkNCCL(SeqNum=57, OpType=ALLREDUCE, NumelIn=4096, NumelOut=4096, Timeout(ms)=600000) ran for 600046 milliseconds before timing out.";
const EXCEPTION_HIT = "[E329 19:15:11.777459894 ProcessGroupNCCL.cpp:1561] [PG 0 Rank 3] Exception hit in NCCL work: 57";

test("a watchdog timeout wrapped at 72 columns is read whole: the collective, its sequence number and its timeout", () => {
  const lines = [...fill(WATCHDOG, 72), ...fill(EXCEPTION_HIT, 72)];
  assert.ok(lines.length >= 5, "the fill breaks both records");
  const { events } = parseLines(lines);
  assert.equal(events.length, 2);
  const [watchdog, hit] = events;
  assert.equal(watchdog!.kind, LogKind.watchdog);
  assert.deepEqual(
    [watchdog!.line, watchdog!.attrs?.op, watchdog!.attrs?.seq, watchdog!.attrs?.timeoutMs, watchdog!.attrs?.elapsedMs],
    [1, "ALLREDUCE", 57, 600000, 600046],
  );
  // The event keeps the file's lines as they were.
  assert.equal(watchdog!.text, fill(WATCHDOG, 72).join("\n"));
  assert.equal(hit!.kind, LogKind.error);
  assert.match(String(hit!.attrs?.error), /Exception hit in NCCL work: 57$/);
});

test("the same records unwrapped read the same", () => {
  const whole = parseLines([WATCHDOG, EXCEPTION_HIT]).events.map((e) => [e.kind, e.attrs?.op, e.attrs?.seq, e.attrs?.error]);
  const wrapped = parseLines([...fill(WATCHDOG, 72), ...fill(EXCEPTION_HIT, 72)]).events.map((e) => [e.kind, e.attrs?.op, e.attrs?.seq, e.attrs?.error]);
  assert.deepEqual(wrapped, whole);
});

test("a wrap width is a fill's: lines no longer than it, broken before words that would not fit", () => {
  assert.deepEqual(wrapOf(fill(WATCHDOG, 72)), { width: Math.max(...fill(WATCHDOG, 72).map((l) => l.length)), atColumn: false });
  // A log whose lines are not filled: no width, whatever their lengths.
  assert.equal(wrapOf(["short line", "another one", "and a third"]).width, 0);
  assert.equal(wrapOf([WATCHDOG, EXCEPTION_HIT]).width, 0);
  // A rule of dashes is no word a fill moved.
  assert.equal(brokeBefore(60, "-".repeat(72), 72), false);
  assert.equal(brokeBefore(66, "caught collective", 72), true);
  assert.equal(brokeBefore(65, "caught collective", 72), false);
});

/** A terminal's copy at `columns`: each line cut at the last column, mid-word, every line padded with spaces to it. */
function terminalCopy(lines: readonly string[], columns: number): string[] {
  const out: string[] = [];
  for (const line of lines) for (let at = 0; at < line.length; at += columns) out.push(line.substring(at, at + columns).padEnd(columns, " "));
  return out;
}

test("a watchdog timeout copied from an 80-column terminal, cut mid-word and padded, is read whole", () => {
  const lines = terminalCopy([WATCHDOG, EXCEPTION_HIT], 80);
  assert.deepEqual(wrapOf(lines), { width: 80, atColumn: true });
  const { events } = parseLines(lines);
  assert.equal(events.length, 2);
  assert.equal(events[0]!.kind, LogKind.watchdog);
  assert.deepEqual([events[0]!.attrs?.seq, events[0]!.attrs?.numelIn, events[0]!.attrs?.elapsedMs], [57, 4096, 600046]);
  assert.match(String(events[1]!.attrs?.error), /Exception hit in NCCL work: 57$/);
});

test("a terminal's cut just before a space leaves the space at the start of the next line: the record is read whole all the same", () => {
  // Cut at 86 columns, the second and third parts start with the spaces before `operation` and `Timeout`.
  const lines = terminalCopy([WATCHDOG, EXCEPTION_HIT], 86);
  assert.ok(lines.some((l) => /^ \S/.test(l)), "a part starts with one space");
  const { events } = parseLines(lines);
  assert.equal(events[0]!.kind, LogKind.watchdog);
  assert.deepEqual([events[0]!.attrs?.op, events[0]!.attrs?.seq], ["ALLREDUCE", 57]);
});

test("a log whose longest lines repeat one message is no terminal's copy: the line after one stays its own", () => {
  const warning = "[2026-03-02 10:15:07] WARNING: The server is fired up but the KV transfer backend reports no peers yet.";
  const lines = [warning, "peer table empty", warning, "peer table empty", "[2026-03-02 10:15:09] Bootstrap server started."];
  assert.equal(wrapOf(lines).width, 0);
  assert.deepEqual(parseLines(lines).events.map((e) => e.line), [1, 2, 3, 4, 5]);
});

test("in a wrapped paste, a line after a record a template read stays a line of its own", () => {
  const lines = [
    "[2026-03-02 10:15:07] Prefill batch, #new-seq: 1, #new-token: 512, #cached-token: 0,",
    "token usage: 0.01, #running-req: 0, #queue-req: 0",
    ...fill(WATCHDOG, 90),
  ];
  const { events } = parseLines(lines);
  // The batch line's template reads its first part; its rest is no part of a record it did not read.
  assert.deepEqual(events.map((e) => e.line), [1, 2, 3]);
  assert.equal(events[2]!.kind, LogKind.watchdog);
});

test("progress bars and a print after them are lines of their own in a wrapped paste", () => {
  const lines = [
    ...fill(WATCHDOG, 72),
    "Loading safetensors checkpoint shards:  25% Completed | 1/4 [00:00<00:02,  1.27it/s]".slice(0, 72),
    "Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:02<00:02,  1.13s/it]".slice(0, 72),
  ];
  const { events } = parseLines(lines);
  assert.equal(events.length, 3);
  assert.equal(events[0]!.kind, LogKind.watchdog);
});

const ASGI_GROUP = [
  "ERROR:    Exception in ASGI application",
  "  + Exception Group Traceback (most recent call last):",
  '  |   File "/usr/local/lib/python3.12/dist-packages/starlette/_utils.py", line 76, in collapse_excgroups',
  "  |     yield",
  '  |   File "/usr/local/lib/python3.12/dist-packages/anyio/_backends/_asyncio.py", line 772, in __aexit__',
  "  |     raise BaseExceptionGroup(",
  "  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)",
  "  +-+---------------- 1 ----------------",
  "    | Traceback (most recent call last):",
  '    |   File "/usr/local/lib/python3.12/dist-packages/sglang/srt/entrypoints/http_server.py", line 512, in generate_request',
  "    |     ret = await _global_state.tokenizer_manager.generate_request(obj, request).__anext__()",
  '    |   File "/usr/local/lib/python3.12/dist-packages/sglang/srt/managers/tokenizer_manager.py", line 1210, in _wait_one_response',
  "    |     raise ValueError(out[\"meta_info\"][\"finish_reason\"][\"message\"])",
  "    | ValueError: KV transfer failed for request rid=3f2a bootstrap_room=7741",
  "    +------------------------------------",
  "INFO:     10.0.3.17:51022 - \"POST /generate HTTP/1.1\" 500 Internal Server Error",
];

test("an exception group's member traceback is read behind its margin: its exception type and message", () => {
  const { events } = parseLines(ASGI_GROUP);
  const exceptions = events.filter((e) => e.kind === LogKind.exception || e.kind === LogKind.error);
  assert.deepEqual(
    exceptions.map((e) => [e.line, e.attrs?.excType, e.attrs?.excMessage]),
    [
      [1, "ExceptionGroup", "unhandled errors in a TaskGroup (1 sub-exception)"],
      [9, "ValueError", "KV transfer failed for request rid=3f2a bootstrap_room=7741"],
    ],
  );
  // The rule after the last member and the access line after the group are no part of it.
  assert.equal(events.at(-1)!.line, 16);
  assert.equal(events.at(-1)!.kind, LogKind.httpFailed);
});

test("an exception group behind each line's process tag (vLLM's `(APIServer pid=…) `) is read the same", () => {
  const { events } = parseLines(ASGI_GROUP.slice(0, 15).map((l) => `(APIServer pid=2211) ${l}`));
  assert.deepEqual(
    events.filter((e) => e.kind === LogKind.exception || e.kind === LogKind.error).map((e) => [e.line, e.attrs?.excType]),
    [
      [1, "ExceptionGroup"],
      [9, "ValueError"],
    ],
  );
});

test("a paste that starts inside a group's member, behind its margin, is a traceback whose exception line is not in the log", () => {
  const { events } = parseLines(ASGI_GROUP.slice(8, 12).map((l) => "  " + l));
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.what]),
    [[LogKind.exception, "a Python traceback whose exception line is not in the log"]],
  );
});

test("a Markdown table's rows are not a group's margin", () => {
  const { events } = parseLines(["| rank | state |", "|------|-------|", "| 0 | ok |"]);
  assert.ok(events.every((e) => e.kind !== LogKind.exception));
});
