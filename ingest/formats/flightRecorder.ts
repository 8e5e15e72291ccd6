// PyTorch Flight Recorder dumps in their JSON form (hicache reference §5.1):
//
//   {"version": "2.x", "pg_config": {pg_id: {name, desc, ranks}}, "pg_status": {...},
//    "entries": [{record_id, pg_id, process_group: [name, desc], collective_seq_id,
//                 p2p_seq_id, op_id, profiling_name: "nccl:all_reduce", time_created_ns,
//                 input_sizes, output_sizes, input_dtypes, output_dtypes, state,
//                 time_discovered_started_ns, time_discovered_completed_ns, retired,
//                 frames, is_p2p, ...}, ...]}
//
// One dump per rank; fr_trace takes the rank from the file name (the digits
// after the dump prefix), and so does this parser. Each entry becomes a
// `coll.enter` at time_created_ns and, when it completed, a `coll.exit` at
// time_discovered_completed_ns, with the probe's coll.* fields (group, op,
// seq, site, digest) so that rules match them like probe collectives (§5.3).
// The whole document is read at the end of the file: dumps hold one ring
// buffer (a few thousand entries), not a stream.

import type { ParsedEvent, ParseIssue } from "../event.js";
import type { InputFormat, LineParser, ParseContext } from "./format.js";
import { intFromValue, parseJsonExact, usFromNs } from "./numerals.js";
import { isPlainObject } from "./records.js";

const MAX_DUMP_CHARS = 256 * 1024 * 1024;

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

function entryEvents(entry: Record<string, unknown>, line: number, rank: number | undefined, issues: ParseIssue[]): ParsedEvent[] {
  const created = usFromNs(entry.time_created_ns);
  if (created === undefined) {
    issues.push({ line, message: "Flight Recorder entry lacks time_created_ns" });
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
  const site = siteOf(entry.frames);
  if (site !== undefined) attrs.site = site;
  if (isP2p) attrs.is_p2p = true;
  const text = JSON.stringify(entry);
  const base = { line, text, ...(rank !== undefined ? { tp: rank } : {}) };
  const out: ParsedEvent[] = [{ ...base, tsUs: created, kind: "coll.enter", attrs }];
  const completed = usFromNs(entry.time_discovered_completed_ns);
  if (completed !== undefined) out.push({ ...base, tsUs: completed, kind: "coll.exit", attrs });
  return out;
}

function parseDump(doc: string, ctx: ParseContext, out: ParsedEvent[], issues: ParseIssue[]): void {
  let dump: unknown;
  try {
    dump = parseJsonExact(doc);
  } catch (e) {
    issues.push({ line: 1, message: `Flight Recorder dump is not JSON: ${(e as Error).message}` });
    return;
  }
  if (!isPlainObject(dump) || !Array.isArray(dump.entries)) {
    issues.push({ line: 1, message: "Flight Recorder dump has no entries array" });
    return;
  }
  const rank = intFromValue(dump.rank) ?? rankFromDumpPath(ctx.sourcePath);
  const places = entryLines(doc);
  const aligned = places.length === dump.entries.length;
  const events: ParsedEvent[] = [];
  dump.entries.forEach((entry, i) => {
    const line = aligned ? places[i]!.line : 1;
    if (!isPlainObject(entry)) issues.push({ line, message: "Flight Recorder entry is not an object" });
    else events.push(...entryEvents(entry, line, rank, issues));
  });
  // The ring buffer is in record order; a rank's timeline is in time order (sort is stable).
  events.sort((a, b) => a.tsUs - b.tsUs);
  out.push(...events);
}

export const flightRecorder: InputFormat = {
  name: "flight-recorder",
  detect(head) {
    const t = head.trimStart();
    return t.startsWith("{") && /"entries"\s*:/.test(t) && /"(pg_config|profiling_name|collective_seq_id)"\s*:/.test(t);
  },
  createParser(ctx): LineParser {
    const lines: string[] = [];
    let chars = 0;
    let tooLarge = false;
    return {
      line(text, lineNo, _out, issues) {
        if (tooLarge) return;
        chars += text.length + 1;
        if (chars > MAX_DUMP_CHARS) {
          tooLarge = true;
          issues.push({ line: lineNo, message: "Flight Recorder dump larger than 256 MiB; not read" });
          return;
        }
        lines.push(text);
      },
      end(out, issues) {
        if (!tooLarge && lines.length > 0) parseDump(lines.join("\n"), ctx, out, issues);
      },
    };
  },
};
