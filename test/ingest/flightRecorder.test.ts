import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ParsedEvent, ParseIssue } from "../../domain/event.js";
import { flightRecorder, flightRecorderPickle, isFlightRecorderPickle, rankFromDumpPath } from "../../ingest/formats/flightRecorder.js";
import { detectBinaryFormat, detectFormat } from "../../ingest/formats/index.js";
import { ingest } from "../../ingest/pipeline.js";
import { FR_DUMP, tempDir, writeTree } from "./bundle.js";

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

// A JSON dump as `_dump_nccl_trace_json` writes one for an incomplete collective (docs/hicache-indexk.md
// §5.1.2): discovery times 0 for "not seen", no duration_ms, no frames.
const ZERO_TIMES_DUMP = JSON.stringify({
  version: "2.7",
  pg_config: { "0": { name: "0", desc: "default_pg", ranks: "[0, 1]" } },
  pg_status: { "0": { last_enqueued_collective: "9143", last_started_collective: "9142", last_completed_collective: "9141" } },
  entries: [
    {
      record_id: 41, pg_id: 0, process_group: ["0", "default_pg"], collective_seq_id: 9142, p2p_seq_id: 0, op_id: 9142,
      profiling_name: "nccl:all_reduce", time_created_ns: 1781186587200000000, input_sizes: [[8, 7168]], input_dtypes: ["BFloat16"],
      output_sizes: [[8, 7168]], output_dtypes: ["BFloat16"], state: "started", time_discovered_started_ns: 1781186587200040000,
      time_discovered_completed_ns: 0, retired: true, timeout_ms: 600000, is_p2p: false,
    },
    {
      record_id: 42, pg_id: 0, process_group: ["0", "default_pg"], collective_seq_id: 9143, p2p_seq_id: 0, op_id: 9143,
      profiling_name: "nccl:broadcast", time_created_ns: 1781186587300000000, input_sizes: [], input_dtypes: [], output_sizes: [],
      output_dtypes: [], state: "scheduled", time_discovered_started_ns: 0, time_discovered_completed_ns: 0, retired: false,
      timeout_ms: 600000, is_p2p: false,
    },
    { record_id: 43, pg_id: 0, process_group: ["0", "default_pg"], collective_seq_id: 9144, profiling_name: "nccl:all_reduce", time_created_ns: 0 },
  ],
});

test("zero discovery times mean 'not seen', never a timestamp; retired without completing is a timeout", () => {
  const { events, issues } = parse(ZERO_TIMES_DUMP, "p0/nccl_trace_rank_1.json");
  assert.deepEqual(
    events.map((e) => [e.kind, e.tsUs, e.attrs?.seq, e.attrs?.timed_out, e.attrs?.started_us]),
    [
      ["coll.enter", 1781186587200000, 9142, true, 1781186587200040],
      ["coll.enter", 1781186587300000, 9143, undefined, undefined],
    ],
  );
  assert.ok(events.every((e) => e.tsUs > 1.7e15), "no event in 1970");
  assert.equal(events[0]!.attrs?.fr_version, "2.7");
  // The entry with no creation time is reported by its record id, not placed.
  assert.deepEqual(issues.map((i) => i.message), ["Flight Recorder entry 43 has no real time_created_ns (0); not placed on the timeline"]);
});

test("a JSON dump with no entries (PyTorch leaves the key out) is no error", () => {
  const { events, issues } = parse(JSON.stringify({ version: "2.10", pg_config: {}, pg_status: {} }), "p0/nccl_trace_rank_0.json");
  assert.deepEqual([events, issues], [[], []]);
});

// test/ingest/fixtures/nccl_trace_rank_1 was written with Python's pickle (protocol 2, as torch's
// dumper writes it): three entries — completed, started and retired without completing, never started.
const PICKLE = new URL("../../../test/ingest/fixtures/nccl_trace_rank_1", import.meta.url);

test("the default pickle dump is read: the same events as its JSON form, entries numbered from 1", () => {
  const bytes = readFileSync(PICKLE);
  assert.equal(isFlightRecorderPickle(bytes), true);
  assert.equal(detectBinaryFormat(bytes)?.name, "flight-recorder-pickle");
  const events: ParsedEvent[] = [];
  const issues: ParseIssue[] = [];
  flightRecorderPickle.parseBytes!(bytes, { sourcePath: "p0/nccl_trace_rank_1", tzOffsetMinutes: 0 }, events, issues);
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.kind, e.line, e.tsUs, e.tp, e.attrs?.op, e.attrs?.seq, e.attrs?.timed_out === true]),
    [
      ["coll.enter", 1, 1781186587100000, 1, "all_reduce", 9141, false],
      ["coll.exit", 1, 1781186587100300, 1, "all_reduce", 9141, false],
      ["coll.enter", 2, 1781186587200000, 1, "all_reduce", 9142, true],
      ["coll.enter", 3, 1781186587300000, 1, "broadcast", 9143, false],
    ],
  );
  assert.equal(events[0]!.attrs?.site, "all_reduce (sglang/srt/distributed/parallel_state.py:512)");
  assert.equal(events[0]!.attrs?.group, "0");
});

test("a damaged pickle is one issue that says how to get the JSON form", () => {
  const bytes = readFileSync(PICKLE).subarray(0, 300);
  const issues: ParseIssue[] = [];
  flightRecorderPickle.parseBytes!(bytes, { sourcePath: "p0/nccl_trace_rank_1", tzOffsetMinutes: 0 }, [], issues);
  assert.equal(issues.length, 1);
  assert.match(issues[0]!.message, /could not be read .*_dump_nccl_trace_json/);
});

test("in an ingest, dumps take the host and role of the logs beside them and share that host's clock", async () => {
  const dir = tempDir("fr-host");
  const stamp = "[2026-06-11 14:03:07 DP0 TP1]";
  writeTree(dir, {
    "p0/prefill-tp1.log": `${stamp} Prefill batch, #new-seq: 1, #new-token: 8192, #cached-token: 0, token usage: 0.04, #running-req: 1, #queue-req: 0\n`,
    "p0/nccl_trace_rank_1": readFileSync(PICKLE),
    "p0/nccl_trace_rank_0.json": ZERO_TIMES_DUMP,
  });
  const summary = await ingest({ db: join(dir, "i.db"), paths: [dir] });
  const byName = (n: string) => summary.sources.find((s) => s.path.endsWith(n))!;
  assert.deepEqual(
    ["nccl_trace_rank_1", "nccl_trace_rank_0.json"].map((n) => [byName(n).status, byName(n).format, byName(n).host, byName(n).ranks]),
    [
      ["ingested", "flight-recorder-pickle", "p0", ["prefill/tp1"]],
      ["ingested", "flight-recorder", "p0", ["prefill/tp0"]],
    ],
  );
  assert.deepEqual(Object.keys(summary.clockOffsetsUs), ["p0"], "one clock domain: the host's");
});

test("a damaged pickle in any way (cut, flipped bytes) never throws and never places an event outside real time", () => {
  const good = readFileSync(PICKLE);
  let seed = 20260611;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let run = 0; run < 300; run++) {
    const bytes = Buffer.from(good.subarray(0, 2 + Math.floor(next() * good.length)));
    for (let flips = Math.floor(next() * 4); flips > 0; flips--) bytes[Math.floor(next() * bytes.length)] = Math.floor(next() * 256);
    const events: ParsedEvent[] = [];
    assert.doesNotThrow(() => flightRecorderPickle.parseBytes!(bytes, { sourcePath: "p0/nccl_trace_rank_1", tzOffsetMinutes: 0 }, events, []), `run ${run}`);
    for (const ev of events) assert.ok(Number.isSafeInteger(ev.tsUs) && ev.tsUs > 946_684_800_000_000, `run ${run}: ${ev.tsUs}`);
  }
});
