// PyTorch Flight Recorder dumps (docs/hicache-indexk.md §5.1), in both forms
// PyTorch writes: the pickle a watchdog timeout dumps (`<prefix><rank>`, the
// default) and the JSON `_dump_nccl_trace_json` / `_dump_fr_trace_json` give.
//
//   {"version": "2.x", "pg_config": {name: {name, desc, ranks}}, "pg_status": {...},
//    "entries": [{record_id, pg_id, process_group: [name, desc], collective_seq_id,
//                 p2p_seq_id, op_id, profiling_name: "nccl:all_reduce", time_created_ns,
//                 input_sizes, output_sizes, input_dtypes, output_dtypes, state,
//                 time_discovered_started_ns, time_discovered_completed_ns, duration_ms,
//                 retired, timeout_ms, frames, is_p2p, ...}, ...]}
//
// A dump carries no rank: fr_trace takes it from the file name (the digits
// after the dump prefix), and so does this parser. Each entry becomes a
// `coll.enter` at time_created_ns and, when it completed, a `coll.exit` at
// time_discovered_completed_ns, with the probe's coll.* fields (group, op,
// seq, site, digest) so that rules match them like probe collectives (§5.3).
// A discovery time of 0 (JSON), None (pickle) or absent means "not seen",
// never a timestamp; an entry retired without completing timed out (§5.1).
// The whole dump is read at the end of the file: dumps hold one ring buffer
// (a few thousand entries), not a stream.

import { Parser as PickleParser } from "pickleparser";
import type { ParsedEvent, ParseIssue } from "../../domain/event.js";
import type { InputFormat, LineParser, ParseContext } from "./format.js";
import { isCrashDumpPickle } from "./crashDump.js";
import { intFromValue, parseJsonExact, usFromNs } from "./numerals.js";
import { startsLikePickle } from "./pickleData.js";
import { isPlainObject, MAX_DOCUMENT_CHARS, wholeDocumentParser } from "./records.js";


/** The rank in a dump's file name: its last run of digits (fr_trace: `<prefix><rank>`). */
export function rankFromDumpPath(path: string): number | undefined {
  const base = path.split(/[\\/]/).pop() ?? "";
  const m = /(\d+)(?!.*\d)/.exec(base.replace(/\.json$/i, ""));
  return m ? Number(m[1]) : undefined;
}

interface EntryPlace {
  line: number;
}

/** Line numbers of the entries: where the object holding each "record_id" opens, in document order. */
function entryLines(doc: string): EntryPlace[] {
  const places: EntryPlace[] = [];
  const re = /"record_id"\s*:/g;
  let line = 1;
  let scanned = 0;
  for (let m = re.exec(doc); m; m = re.exec(doc)) {
    const open = Math.max(scanned, doc.lastIndexOf("{", m.index));
    for (let i = doc.indexOf("\n", scanned); i >= 0 && i < open; i = doc.indexOf("\n", i + 1)) line++;
    scanned = open;
    places.push({ line });
  }
  return places;
}

function opName(profilingName: unknown): string | undefined {
  return typeof profilingName === "string" ? profilingName.replace(/^[a-z]+:/, "") : undefined;
}

function siteOf(frames: unknown): string | undefined {
  if (!Array.isArray(frames) || frames.length === 0 || !isPlainObject(frames[0])) return undefined;
  const f = frames[0];
  return `${String(f.name)} (${String(f.filename)}:${String(f.line)})`;
}

/** Stamps before 2000 or after 2200 are no real times (a zero, a counter). */
const MIN_PLAUSIBLE_US = 946_684_800_000_000;
const MAX_PLAUSIBLE_US = 7_258_118_400_000_000;

/** An entry's time in µs, or undefined for "not happened" (0, None, absent) and for anything not a real time. */
function happenedUs(v: unknown): number | undefined {
  const us = usFromNs(v);
  return us !== undefined && us >= MIN_PLAUSIBLE_US && us < MAX_PLAUSIBLE_US ? us : undefined;
}

interface DumpFacts {
  rank: number | undefined;
  version: string | undefined;
}

function entryEvents(entry: Record<string, unknown>, line: number, dump: DumpFacts, issues: ParseIssue[]): ParsedEvent[] {
  const created = happenedUs(entry.time_created_ns);
  if (created === undefined) {
    const what = entry.time_created_ns === undefined ? "lacks time_created_ns" : `has no real time_created_ns (${String(entry.time_created_ns)})`;
    issues.push({ line, message: `Flight Recorder entry ${String(entry.record_id ?? "?")} ${what}; not placed on the timeline` });
    return [];
  }
  const pg = Array.isArray(entry.process_group) ? entry.process_group : [];
  const isP2p = entry.is_p2p === true;
  const attrs: Record<string, unknown> = {
    group: pg[0] ?? entry.pg_id,
    op: opName(entry.profiling_name),
    seq: intFromValue(isP2p ? entry.p2p_seq_id : entry.collective_seq_id),
    digest: `${JSON.stringify(entry.input_sizes ?? null)}/${JSON.stringify(entry.input_dtypes ?? null)}`,
    record_id: entry.record_id,
    pg_desc: pg[1],
    fr_state: entry.state,
  };
  if (dump.version !== undefined) attrs.fr_version = dump.version;
  const site = siteOf(entry.frames);
  if (site !== undefined) attrs.site = site;
  if (isP2p) attrs.is_p2p = true;
  const started = happenedUs(entry.time_discovered_started_ns);
  if (started !== undefined) attrs.started_us = started;
  if (typeof entry.duration_ms === "number") attrs.duration_ms = entry.duration_ms;
  if (typeof entry.timeout_ms === "number") attrs.timeout_ms = entry.timeout_ms;
  const completed = happenedUs(entry.time_discovered_completed_ns);
  if (entry.retired === true && completed === undefined) attrs.timed_out = true;
  const text = JSON.stringify(entry, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
  const base = { line, text, ...(dump.rank !== undefined ? { tp: dump.rank } : {}) };
  const out: ParsedEvent[] = [{ ...base, tsUs: created, kind: "coll.enter", attrs }];
  if (completed !== undefined) out.push({ ...base, tsUs: completed, kind: "coll.exit", attrs });
  return out;
}

function parseJsonDump(doc: string, ctx: ParseContext, out: ParsedEvent[], issues: ParseIssue[]): void {
  let dump: unknown;
  try {
    dump = parseJsonExact(doc);
  } catch (e) {
    issues.push({ line: 1, message: `Flight Recorder dump is not JSON: ${(e as Error).message}` });
    return;
  }
  const places = entryLines(doc);
  dumpEvents(dump, ctx, (i, n) => (places.length === n ? places[i]!.line : 1), out, issues);
}

/**
 * The events of a parsed dump. JSON leaves `entries` out when there are
 * none (§5.1.1); `lineOf` says where entry i of n starts (a pickle has no
 * lines: its entries are numbered from 1).
 */
function dumpEvents(dump: unknown, ctx: ParseContext, lineOf: (i: number, n: number) => number, out: ParsedEvent[], issues: ParseIssue[]): void {
  if (!isPlainObject(dump) || (dump.entries !== undefined && !Array.isArray(dump.entries)) || (dump.entries === undefined && dump.version === undefined)) {
    issues.push({ line: 1, message: "not a Flight Recorder dump: no entries list and no version" });
    return;
  }
  const entries = (dump.entries ?? []) as unknown[];
  const facts: DumpFacts = {
    rank: intFromValue(dump.rank) ?? rankFromDumpPath(ctx.sourcePath),
    version: typeof dump.version === "string" ? dump.version : undefined,
  };
  const events: ParsedEvent[] = [];
  entries.forEach((entry, i) => {
    const line = lineOf(i, entries.length);
    if (!isPlainObject(entry)) issues.push({ line, message: "Flight Recorder entry is not an object" });
    else events.push(...entryEvents(entry, line, facts, issues));
  });
  // The ring buffer is in record order; a rank's timeline is in time order (sort is stable).
  events.sort((a, b) => a.tsUs - b.tsUs);
  out.push(...events);
}

/** pickleparser warns on stderr for every 64-bit integer (the ns stamps); below 1 µs of precision is lost, which is fine. */
function unpickle(bytes: Buffer): unknown {
  const warn = console.warn;
  console.warn = () => {};
  try {
    return new PickleParser().parse(bytes);
  } finally {
    console.warn = warn;
  }
}

/** The pickle PyTorch dumps on a watchdog timeout: PROTO 2..5, then the dump dict (an SGLang crash dump is another pickle). */
export function isFlightRecorderPickle(head: Buffer): boolean {
  if (!startsLikePickle(head) || isCrashDumpPickle(head)) return false;
  const text = head.toString("latin1");
  return text.includes("entries") || (text.includes("pg_config") && text.includes("version"));
}

export const flightRecorder: InputFormat = {
  name: "flight-recorder",
  detect(head) {
    const t = head.trimStart();
    return t.startsWith("{") && /"entries"\s*:/.test(t) && /"(pg_config|profiling_name|collective_seq_id)"\s*:/.test(t);
  },
  createParser(ctx): LineParser {
    return wholeDocumentParser("Flight Recorder dump", (doc, out, issues) => parseJsonDump(doc, ctx, out, issues));
  },
};

/** The pickle form: read whole (a binary file has no lines); entry i is "line" i + 1. */
export const flightRecorderPickle: InputFormat = {
  name: "flight-recorder-pickle",
  detect: () => false,
  detectBytes: isFlightRecorderPickle,
  createParser() {
    throw new Error("a Flight Recorder pickle is read whole (parseBytes), not by lines");
  },
  parseBytes(bytes, ctx, out, issues) {
    if (bytes.length > MAX_DOCUMENT_CHARS) {
      issues.push({ line: 1, message: "Flight Recorder dump larger than 256 MiB; not read" });
      return;
    }
    let dump: unknown;
    try {
      dump = unpickle(bytes);
    } catch (e) {
      issues.push({
        line: 1,
        message: `Flight Recorder pickle could not be read (${(e as Error).message}); dump it as JSON with torch._C._distributed_c10d._dump_nccl_trace_json()`,
      });
      return;
    }
    dumpEvents(dump, ctx, (i) => i + 1, out, issues);
  },
};
