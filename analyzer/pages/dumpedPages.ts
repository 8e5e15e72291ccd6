// The incident's dumped pages: each `page.dump` record (formats/pageDump) with
// the bytes the store kept for it (ingest/store/pages.ts, by the record's
// source and line), replayed once per analysis (./pairs.ts) and shared by the
// rules that read it (page-bytes, checksum-mismatch).

import { PAGE_DUMP_KIND, type PageDumpAttrs } from "../../ingest/formats/pageDump/record.js";
import { allPages } from "../../ingest/store/pages.js";
import type { StoredEvent } from "../../ingest/store/queries.js";
import type { Evidence } from "../rules/evidence.js";
import { replayPages, type DumpedPage, type PagePair, type PageReplay } from "./pairs.js";

export interface IncidentPages extends PageReplay<StoredEvent> {
  /** Records whose bytes the incident does not hold (their errors are the source's). */
  unread: StoredEvent[];
}

const replays = new WeakMap<Evidence, IncidentPages>();

export function incidentPages(evidence: Evidence): IncidentPages {
  let r = replays.get(evidence);
  if (!r) {
    r = readPages(evidence);
    replays.set(evidence, r);
  }
  return r;
}

/** The diagnosis of the decode page a checksum record describes, when its bytes were dumped too. */
export function pageDiagnosisAt(evidence: Evidence, at: { room: string; buffer: string; layer: number; pos: number; side: string }): PagePair<StoredEvent> | undefined {
  return incidentPages(evidence).pairs.find(
    (p) => p.decode.room === at.room && p.decode.buffer === at.buffer && p.decode.layer === at.layer && p.decode.pos === at.pos && p.decode.side === at.side,
  );
}

function readPages(evidence: Evidence): IncidentPages {
  const records = evidence.of(PAGE_DUMP_KIND);
  if (records.length === 0) return { ...replayPages([]), unread: [] };
  const bytes = new Map(allPages(evidence.db).map((p) => [`${p.sourceId}:${p.line}`, p.bytes]));
  const pages: DumpedPage<StoredEvent>[] = [];
  const unread: StoredEvent[] = [];
  for (const ev of records) {
    const b = bytes.get(`${ev.sourceId}:${ev.line}`);
    const page = b && dumpedPage(evidence, ev, b);
    if (page) pages.push(page);
    else unread.push(ev);
  }
  return { ...replayPages(pages), unread };
}

function dumpedPage(evidence: Evidence, ev: StoredEvent, bytes: Uint8Array): DumpedPage<StoredEvent> | undefined {
  const a = ev.attrs as Partial<PageDumpAttrs> | null;
  if (!a || ev.room === null || ev.layer === null || ev.pageLo === null || a.side === undefined || a.dtype === undefined || a.pos === undefined) return undefined;
  const rank = evidence.rank(ev);
  return {
    seq: ev.seq,
    room: ev.room,
    side: a.side,
    buffer: a.buffer ?? "index_k",
    layer: ev.layer,
    page: ev.pageLo,
    pos: a.pos,
    dtype: a.dtype,
    pool: `${ev.host ?? ""}|${rank}`,
    bytes,
    ...(a.checksum !== undefined && a.algo !== undefined && { checksum: { algo: a.algo, value: a.checksum } }),
    ref: ev,
  };
}
