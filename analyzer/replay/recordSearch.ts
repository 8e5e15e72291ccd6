// The first SGLang log record that holds a set of substrings, searched in the
// stored event texts (store/eventText.ts) rather than event by event:
// each source's text blocks are scanned in line order for the first record
// holding every substring of a set, and the blocks of each source then turn
// the (source, line) found into seqs. A source's records keep their line
// order in the global order, so its first match by line is its first by seq.

import type { IncidentDb } from "../../store/db.js";
import { textBlocks } from "../../store/eventText.js";
import { sglangLogSources, textSources } from "../../store/read/sources.js";
import { firstSeqOfLines } from "../../store/read/seqs.js";

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

/**
 * For each set of substrings, the first record in seq order that holds all of them: in the SGLang logs, and for the
 * sets of `alsoInText` in the plain text files too (a terminal's text, where a launch command stands).
 */
export function firstRecordsWith(db: IncidentDb, needleSets: readonly (readonly string[])[], alsoInText: ReadonlySet<number> = new Set()): (RecordMatch | undefined)[] {
  const found = [
    ...sglangLogSources(db).flatMap((sourceId) => firstInSource(db, sourceId, needleSets, new Set(needleSets.keys()))),
    ...(alsoInText.size > 0 ? textSources(db).flatMap((sourceId) => firstInSource(db, sourceId, needleSets, new Set(alsoInText))) : []),
  ];
  const seqs = firstSeqOfLines(db, found);
  const out: (RecordMatch | undefined)[] = needleSets.map(() => undefined);
  for (const f of found) {
    const seq = seqs.get(`${f.sourceId}:${f.line}`);
    if (seq === undefined) continue;
    const best = out[f.set];
    if (!best || seq < best.seq) out[f.set] = { seq, text: f.text };
  }
  return out;
}

/** Per set of `open`, the source's first record (by line) holding all its substrings. */
function firstInSource(db: IncidentDb, sourceId: number, needleSets: readonly (readonly string[])[], open: Set<number>): Found[] {
  const heads = needleSets.map((set) => Buffer.from(set[0]!));
  const out: Found[] = [];
  for (const { lines, ends, text } of textBlocks(db, sourceId)) {
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
