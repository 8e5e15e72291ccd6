// The state view `replay --at` and the UI show: rooms with their KVPoll state
// on each side, pages with owners and landed status, transfer queues,
// bootstrap threads, HiCache slots and collective positions per rank.

import type { KVPollValue, ModelStateView, PageView, RoomView } from "./api.js";
import { toRanges } from "./evidence.js";
import type { RoomRec } from "./rooms.js";
import { BUFFERS, type PageRec } from "./shadowMemory.js";
import type { ModelState } from "./state.js";

function roomView(s: ModelState, r: RoomRec): RoomView {
  const senders = [...r.prefill.values()];
  const receivers = [...r.decode.values()];
  const first = receivers[0];
  return {
    room: r.room,
    prefill: {
      state: r.prefillState() as KVPollValue | null,
      ranks: senders.map((x) => s.ranks.label(x.rank)),
      chunksPosted: senders.reduce((m, x) => Math.max(m, x.chunksPosted), 0),
      chunksDone: senders.reduce((m, x) => Math.max(m, x.chunksDone), 0),
      queue: senders.find((x) => x.queue !== null)?.queue ?? null,
      changedAt: senders.length === 0 ? null : Math.max(...senders.map((x) => x.changedSeq)),
    },
    decode: {
      state: r.decodeState() as KVPollValue | null,
      ranks: receivers.map((x) => s.ranks.label(x.rank)),
      chunksNotified: receivers.reduce((m, x) => Math.max(m, x.transfer.chunksReceived()), 0),
      auxReceived: receivers.length > 0 && receivers.every((x) => x.transfer.receivedAux),
      pages: first === undefined ? [] : toRanges(first.pages),
      changedAt: receivers.length === 0 ? null : Math.max(...receivers.map((x) => x.changedSeq)),
    },
  };
}

function pageView(s: ModelState, p: PageRec): PageView {
  const inflight = p.inflight ?? [];
  const last = inflight[inflight.length - 1];
  const lastWriter =
    last !== undefined
      ? { room: last.write.room, chunk: last.write.chunk, epoch: last.epoch, seq: last.write.postSeq }
      : p.lwRoom !== null
        ? { room: p.lwRoom, chunk: p.lwChunk, epoch: p.lwEpoch, seq: p.lwPostSeq }
        : null;
  return {
    rank: s.ranks.label(p.rank),
    buffer: BUFFERS[p.buf] ?? String(p.buf),
    layer: -1,
    page: p.page,
    ownerRoom: p.owner,
    lastWriter,
    landed: inflight.length === 0 && (p.hcLoad < 0 || loadFinished(s, p)),
    changedAt: p.changedSeq,
  };
}

function loadFinished(s: ModelState, p: PageRec): boolean {
  const l = s.hicache.get(p.rank)?.loadById(p.hcLoad);
  return l == null || l.finished();
}

export function buildView(s: ModelState, filter?: { room?: string }): ModelStateView {
  const only = filter?.room;
  const rooms: RoomView[] = [];
  if (only !== undefined) {
    const r = s.rooms.find(only);
    if (r !== undefined) rooms.push(roomView(s, r));
  } else for (const r of s.rooms.rooms.values()) rooms.push(roomView(s, r));
  const pages: PageView[] = [];
  for (const p of s.shadow.all()) {
    if (only !== undefined && p.owner !== only && !(p.inflight ?? []).some((t) => t.write.room === only)) continue;
    pages.push(pageView(s, p));
  }
  return {
    atSeq: s.lastSeq,
    profile: s.profile,
    rooms,
    pages,
    queues: [...s.queues.values()].map((q) => ({ rank: s.ranks.label(q.rank), queue: q.queue, depth: q.depth, changedAt: q.changedSeq })),
    bootstrapThreads: [...s.threads.values()].map((t) => {
      const v: ModelStateView["bootstrapThreads"][number] = { rank: s.ranks.label(t.rank), alive: t.alive, changedAt: t.changedSeq };
      if (t.error !== null) v.error = t.error;
      return v;
    }),
    hicacheSlots: [...s.hicache].flatMap(([rank, c]) =>
      c.slots.flatMap((l, slot) =>
        l === null ? [] : [{ rank: s.ranks.label(rank), slot, layersDone: l.layersDone, layers: l.layers, consumer: c.consumerIndex === slot, changedAt: Math.max(l.startSeq, l.lastLayerSeq ?? -1, c.changedSeq) }],
      ),
    ),
    collectives: [...s.collectives.groups.values()].flatMap((g) =>
      [...g.members.values()].map((m) => ({ rank: s.ranks.label(m.rank), group: g.key, seq: m.lastSeq, op: m.op, site: m.site, inside: m.inside, changedAt: m.changedSeq })),
    ),
  };
}
