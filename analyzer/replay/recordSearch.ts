// The first SGLang log record that holds a set of substrings, searched in the
// stored event texts (ingest/store/eventText.ts) rather than event by event:
// each source's text blocks are scanned in line order for the first record
// holding every substring of a set, and one pass over the events then turns
// the (source, line) found into seqs. A source's records keep their line
// order in the global order, so its first match by line is its first by seq.

import type { Statement } from "better-sqlite3";
import type { IncidentDb } from "../../ingest/store/db.js";

export interface RecordMatch {
  seq: number;
  text: string;
}

interface Found {
  set: number;
  sourceId: number;
  line: number;
  text: string;
}

/** For each set of substrings, the first record in seq order that holds all of them. */
export function firstRecordsWith(db: IncidentDb, needleSets: readonly (readonly string[])[]): (RecordMatch | undefined)[] {
  const sources = db
    .prepare("SELECT id FROM sources WHERE status = 'complete' AND format = 'sglang-log' ORDER BY id")
    .pluck()
    .all() as number[];
  const blocks = db.prepare("SELECT lines, ends, text FROM event_text WHERE source_id = ? ORDER BY first_line").raw();
  const found = sources.flatMap((sourceId) => firstInSource(blocks, sourceId, needleSets));
  const seqs = seqsOf(db, found);
  const out: (RecordMatch | undefined)[] = needleSets.map(() => undefined);
  for (const f of found) {
    const seq = seqs.get(`${f.sourceId}:${f.line}`);
    if (seq === undefined) continue;
    const best = out[f.set];
    if (!best || seq < best.seq) out[f.set] = { seq, text: f.text };
  }
  return out;
}

/** Per set, the source's first record (by line) holding all its substrings. */
function firstInSource(blocks: Statement, sourceId: number, needleSets: readonly (readonly string[])[]): Found[] {
  const heads = needleSets.map((set) => Buffer.from(set[0]!));
  const open = new Set(needleSets.keys());
  const out: Found[] = [];
  for (const [lines, ends, text] of blocks.iterate(sourceId) as Iterable<[Buffer, Buffer, Buffer]>) {
    for (const set of open) {
      const hit = firstEntryWith(lines, ends, text, heads[set]!, needleSets[set]!);
      if (!hit) continue;
      out.push({ set, sourceId, ...hit });
      open.delete(set);
    }
    if (open.size === 0) break;
  }
  return out;
}

/** The first entry of a block whose text contains `head` and every needle. */
function firstEntryWith(lines: Buffer, ends: Buffer, text: Buffer, head: Buffer, needles: readonly string[]): { line: number; text: string } | undefined {
  const count = ends.length / 4;
  for (let from = 0; ; ) {
    const at = text.indexOf(head, from);
    if (at < 0) return undefined;
    const entry = entryAt(ends, count, at);
    const start = entry === 0 ? 0 : ends.readUInt32LE((entry - 1) * 4);
    const end = ends.readUInt32LE(entry * 4);
    const record = text.toString("utf8", start, end);
    if (needles.every((n) => record.includes(n))) return { line: lines.readUInt32LE(entry * 4), text: record };
    from = end;
  }
}

/** The entry whose text spans byte `at`: the first whose end is past it. */
function entryAt(ends: Buffer, count: number, at: number): number {
  let lo = 0;
  let hi = count - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ends.readUInt32LE(mid * 4) > at) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** "source:line" → the first seq of the records found, in one pass over the events. */
function seqsOf(db: IncidentDb, found: Found[]): Map<string, number> {
  const out = new Map<string, number>();
  if (found.length === 0) return out;
  const wanted = new Set(found.map((f) => `${f.sourceId}:${f.line}`));
  const lines = [...new Set(found.map((f) => f.line))];
  // No index leads from (source, line) to seq; one scan testing the line
  // against a short list beats a join that would rescan per record.
  const rows = db
    .prepare(
      `SELECT source_id AS sourceId, line, MIN(seq) AS seq FROM events
       WHERE line IN (${lines.map(() => "?").join(", ")}) GROUP BY source_id, line`,
    )
    .all(...lines) as { sourceId: number; line: number; seq: number }[];
  for (const r of rows) {
    const key = `${r.sourceId}:${r.line}`;
    if (wanted.has(key)) out.set(key, r.seq);
  }
  return out;
}
