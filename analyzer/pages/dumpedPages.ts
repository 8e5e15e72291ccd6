// The incident's dumped pages: each `page.dump` record (formats/pageDump) with
// the bytes the store kept for it (store/pages.ts, by the record's
// source and line), as the replay's page kernels left them (the model ran
// them on every record in seq order: analyzer/model/pageKernels.ts), each
// unequal pair diagnosed once per analysis (./pairs.ts) and shared by the
// rules that read it (page-bytes, checksum-mismatch). Without a replay (a
// rule run on its own, the page panel) the same kernels run here on the
// stored pages in seq order.

import { PAGE_DUMP_KIND } from "../../domain/kinds.js";
import { allPages } from "../../store/pages.js";
import type { StoredEvent } from "../../store/read/events.js";
import { PageKernels } from "../model/pageKernels.js";
import { dumpedPageOf, pageBytesKey, type ModelDumpedPage } from "../model/pagePath.js";
import type { Evidence } from "../rules/evidence.js";
import { diagnosePages, type DumpedPage, type PagePair, type PageReplay, type PagesReplayed } from "./pairs.js";

export interface IncidentPages extends PageReplay<StoredEvent> {
  /** Records whose bytes the incident does not hold (their errors are the source's). */
  unread: StoredEvent[];
}

const replays = new WeakMap<Evidence, IncidentPages>();

/** The pages of the incident; `kernels` are the replay's when one ran. */
export function incidentPages(evidence: Evidence, kernels?: PageKernels<ModelDumpedPage>): IncidentPages {
  let r = replays.get(evidence);
  if (!r) {
    r = kernels ? fromReplay(evidence, kernels) : readPages(evidence);
    replays.set(evidence, r);
  }
  return r;
}

/** The diagnosis of the decode page a checksum record describes, when its bytes were dumped too. */
export function pageDiagnosisAt(
  evidence: Evidence,
  at: { room: string; buffer: string; layer: number; pos: number; side: string },
  kernels?: PageKernels<ModelDumpedPage>,
): PagePair<StoredEvent> | undefined {
  return incidentPages(evidence, kernels).pairs.find(
    (p) => p.decode.room === at.room && p.decode.buffer === at.buffer && p.decode.layer === at.layer && p.decode.pos === at.pos && p.decode.side === at.side,
  );
}

/** The replay's kernel results with each page linked to its record. */
function fromReplay(evidence: Evidence, kernels: PageKernels<ModelDumpedPage>): IncidentPages {
  const records = evidence.of(PAGE_DUMP_KIND);
  const bySeq = new Map(records.map((ev) => [ev.seq, ev]));
  const linked = new Map<ModelDumpedPage, DumpedPage<StoredEvent>>();
  const link = (p: ModelDumpedPage): DumpedPage<StoredEvent> => {
    let d = linked.get(p);
    if (!d) {
      d = { ...p, ref: bySeq.get(p.seq)! };
      linked.set(p, d);
    }
    return d;
  };
  const replayed = withPages(diagnosePages(kernels), link);
  const read = new Set(kernels.pages.map((p) => p.seq));
  return { ...replayed, unread: records.filter((ev) => !read.has(ev.seq)) };
}

function withPages<P, Q>(r: PagesReplayed<P>, to: (p: P) => Q): PagesReplayed<Q> {
  return {
    pages: r.pages.map(to),
    disagreements: r.disagreements.map((d) => ({ page: to(d.page), recomputed: d.recomputed })),
    offSize: r.offSize.map(to),
    pairs: r.pairs.map((p) => ({ prefill: to(p.prefill), decode: to(p.decode), diagnosis: p.diagnosis })),
    unpaired: r.unpaired.map(to),
  };
}

/** The kernels over the stored pages, record by record in seq order, as the replay runs them. */
function readPages(evidence: Evidence): IncidentPages {
  const kernels = new PageKernels<ModelDumpedPage>();
  const records = evidence.of(PAGE_DUMP_KIND);
  const bytes = records.length === 0 ? new Map<string, Uint8Array>() : new Map(allPages(evidence.db).map((p) => [pageBytesKey(p.sourceId, p.line), p.bytes]));
  for (const ev of records) {
    const b = bytes.get(pageBytesKey(ev.sourceId, ev.line));
    const page = b && dumpedPageOf(ev, b, false);
    if (page) kernels.dump(page);
  }
  return fromReplay(evidence, kernels);
}
