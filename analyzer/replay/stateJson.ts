// The state view as JSON for people and scripts (`replay --at --json`, the
// UI server): KVPoll states by name, every `changedAt` seq paired with the
// event (file, line, text) that made the change. Rooms stay decimal strings.

import { type ModelStateView } from "../model/api.js";
import { KVPoll, type KVPollValue } from "../../domain/vocabulary.js";
import type { EventRef } from "./eventRefs.js";

export type KVPollName = keyof typeof KVPoll;

const POLL_NAMES = Object.fromEntries(Object.entries(KVPoll).map(([name, v]) => [v, name])) as Record<KVPollValue, KVPollName>;

export function pollName(v: KVPollValue | null): KVPollName | null {
  return v === null ? null : POLL_NAMES[v];
}

/** A seq with the event it names, as JSON prints it. */
export interface Cited {
  seq: number;
  source: string | null;
  line: number | null;
  text: string | null;
}

function cite(seq: number | null, refs: ReadonlyMap<number, EventRef>): Cited | null {
  if (seq === null || seq < 0) return null;
  const r = refs.get(seq);
  return { seq, source: r?.source ?? null, line: r?.line ?? null, text: r?.text ?? null };
}

export function stateJson(view: ModelStateView, refs: ReadonlyMap<number, EventRef>) {
  return {
    atSeq: view.atSeq,
    rooms: view.rooms.map((r) => ({
      room: r.room,
      ...(r.inferred && { inferred: { ...r.inferred, line: cite(r.inferred.seq, refs) } }),
      ...(r.assumed && { assumed: r.assumed }),
      prefill: { ...r.prefill, state: pollName(r.prefill.state), changedAt: cite(r.prefill.changedAt, refs) },
      decode: { ...r.decode, state: pollName(r.decode.state), changedAt: cite(r.decode.changedAt, refs) },
    })),
    pages: view.pages.map((p) => ({
      ...p,
      lastWriter: p.lastWriter ? { ...p.lastWriter, event: cite(p.lastWriter.seq, refs) } : null,
      changedAt: cite(p.changedAt, refs),
    })),
    queues: view.queues.map((q) => ({ ...q, changedAt: cite(q.changedAt, refs), ...(q.inferred && { inferred: { ...q.inferred, line: cite(q.inferred.seq, refs) } }) })),
    bootstrapThreads: view.bootstrapThreads.map((b) => ({ ...b, changedAt: cite(b.changedAt, refs) })),
    hicacheSlots: view.hicacheSlots.map((h) => ({ ...h, changedAt: cite(h.changedAt, refs) })),
    collectives: view.collectives.map((c) => ({ ...c, changedAt: cite(c.changedAt, refs) })),
    collectiveDivergences: view.collectiveDivergences.map((d) => ({ ...d, changedAt: cite(d.changedAt, refs) })),
    dumpedPages: view.dumpedPages.map((d) => ({
      ...d,
      record: cite(d.seq, refs),
      pair: d.pair ? { ...d.pair, prefill: cite(d.pair.prefillSeq, refs) } : null,
    })),
  };
}
