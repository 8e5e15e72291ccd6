// The trace checker the export's tests use (traceEventFormat.ts) refuses what
// the Trace Event Format forbids: a check that passes everything proves nothing.

import { test } from "node:test";
import assert from "node:assert/strict";
import { checkTrace } from "./traceEventFormat.js";

const names = [
  { ph: "M", name: "process_name", pid: 1, args: { name: "p0/prefill" } },
  { ph: "M", name: "thread_name", pid: 1, tid: 2, args: { name: "TP0 transfer" } },
];
const on = { pid: 1, tid: 2 };
const trace = (...events: object[]) => ({ traceEvents: [...names, ...events] });

test("a well-formed trace passes: nested slices, a B/E pair, a paired flow, a counter, a global instant", () => {
  const checked = checkTrace(
    trace(
      { ph: "X", name: "outer", ts: 0, dur: 10, ...on },
      { ph: "X", name: "inner", ts: 2, dur: 3, ...on },
      { ph: "X", name: "after", ts: 10, dur: 0, ...on },
      { ph: "B", name: "b", ts: 20, ...on },
      { ph: "E", ts: 21, ...on },
      { ph: "s", name: "chunk 0", cat: "flow", id: 1, ts: 2.5, ...on },
      { ph: "f", name: "chunk 0", cat: "flow", id: 1, bp: "e", ts: 4, ...on },
      { ph: "C", name: "queue", ts: 1, pid: 1, args: { value: 3 } },
      { ph: "i", name: "F1", s: "g", ts: 5, pid: 0, tid: 0 },
    ),
  );
  assert.equal(checked.traceEvents.length, 11);
});

test("each broken rule is refused, by name", () => {
  const refused: [string, object[], RegExp][] = [
    ["a negative duration", [{ ph: "X", name: "x", ts: 0, dur: -1, ...on }], /dur|too_small|>=0/i],
    ["a counter without a number", [{ ph: "C", name: "q", ts: 0, pid: 1, args: { value: "3" } }], /number|expected/i],
    ["a metadata event with no name", [{ ph: "M", name: "thread_name", pid: 1, tid: 3, args: {} }], /name|expected/i],
    ["partly overlapping slices", [{ ph: "X", name: "a", ts: 0, dur: 10, ...on }, { ph: "X", name: "b", ts: 5, dur: 10, ...on }], /overlaps 'a' without nesting/],
    ["an unclosed B", [{ ph: "B", name: "b", ts: 0, ...on }], /B left open/],
    ["an E with no B", [{ ph: "E", ts: 0, ...on }], /closes no B/],
    ["a flow with no end", [{ ph: "s", name: "c", cat: "flow", id: 7, ts: 0, ...on }], /flow 7 has 1 start\(s\) and 0 end/],
    ["a flow ending under another name", [{ ph: "s", name: "c", cat: "flow", id: 7, ts: 0, ...on }, { ph: "f", name: "d", cat: "flow", id: 7, ts: 1, ...on }], /another name/],
    ["an event on an unnamed thread", [{ ph: "X", name: "x", ts: 0, dur: 1, pid: 1, tid: 9 }], /thread 1\/9 has no name/],
  ];
  for (const [what, events, message] of refused) assert.throws(() => checkTrace(trace(...events)), message, what);
});
