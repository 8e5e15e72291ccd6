import { test } from "node:test";
import assert from "node:assert/strict";
import type { ParsedEvent, ParseIssue } from "../../ingest/event.js";
import { flightRecorder, rankFromDumpPath } from "../../ingest/formats/flightRecorder.js";
import { detectFormat } from "../../ingest/formats/index.js";
import { FR_DUMP } from "./bundle.js";

function parse(doc: string, path: string): { events: ParsedEvent[]; issues: ParseIssue[] } {
  const parser = flightRecorder.createParser({ sourcePath: path, host: "p0", role: "prefill", tzOffsetMinutes: 0 });
  const events: ParsedEvent[] = [];
  const issues: ParseIssue[] = [];
  doc.split("\n").forEach((l, i) => parser.line(l, i + 1, events, issues));
  parser.end(events, issues);
  return { events, issues };
}

test("entries become coll.enter at creation and coll.exit at completion, with the probe's coll fields", () => {
  const { events, issues } = parse(FR_DUMP, "p0/nccl_trace_rank_2.json");
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.kind, e.tsUs, e.tp, e.line, e.attrs?.group, e.attrs?.op, e.attrs?.seq]),
    [
      ["coll.enter", 1764421512100000, 2, 6, "0", "all_reduce", 1],
      ["coll.exit", 1764421512100300, 2, 6, "0", "all_reduce", 1],
      ["coll.enter", 1764421512200000, 2, 27, "0", "all_reduce", 2],
      ["coll.exit", 1764421512200400, 2, 27, "0", "all_reduce", 2],
      ["coll.enter", 1764421512300000, 2, 48, "0", "broadcast", 3],
    ],
  );
  assert.equal(events[0]!.attrs?.site, "all_reduce (parallel_state.py:512)");
  assert.equal(events[0]!.attrs?.digest, '[[3,4]]/["Float"]');
  assert.equal(events[4]!.attrs?.fr_state, "scheduled");
  assert.match(events[4]!.text, /"record_id":42/);
});

test("the rank comes from the dump's file name, as fr_trace reads it", () => {
  assert.equal(rankFromDumpPath("traces/nccl_trace_rank_11"), 11);
  assert.equal(rankFromDumpPath("d0/fr_dump_3.json"), 3);
  assert.equal(rankFromDumpPath("dump.json"), undefined);
});

test("a dump that is not valid JSON is one issue, not a crash", () => {
  const { events, issues } = parse(FR_DUMP.slice(0, 400), "p0/nccl_trace_rank_0");
  assert.deepEqual(events, []);
  assert.equal(issues.length, 1);
  assert.match(issues[0]!.message, /not JSON/);
});

test("detection: a dump is recognised by its keys", () => {
  assert.equal(detectFormat(FR_DUMP)?.name, "flight-recorder");
  assert.equal(detectFormat(FR_DUMP.replace(/\n\s*/g, ""))?.name, "flight-recorder");
});
