// The state view `replay --at` and the UI show: rooms with their KVPoll state
// on each side, pages with owners and landed status, transfer queues,
// bootstrap threads, HiCache slots and collective positions per rank.

import type { KVPollValue, ModelStateView, PageView, RoomView } from "./api.js";
import { toRanges } from "./evidence.js";
import { assumptionsOf, type RoomRec } from "./rooms.js";
import { BUFFERS, poolBuffer, poolRank } from "./shadowMemory.js";
import { dumpedPageViews } from "./pagePath.js";
import { nullable } from "./slots.js";
import type { ModelState } from "./state.js";

function roomView(s: ModelState, r: RoomRec): RoomView {
  const senders = [...r.prefill.values()];
  const receivers = [...r.decode.values()];
  const first = receivers[0];
  const assumed = assumptionsOf(r.assumed);
  return {
    room: r.room,
    ...(assumed.length > 0 && { assumed }),
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

/** The view of each page of extent `x`: they differ only in their number. */
function pageViews(s: ModelState, x: number, out: PageView[]): void {
  const { extents: E, targets: T, writes: W } = s.shadow;
  const last = E.lastTarget[x]!;
  const w = last < 0 ? -1 : T.write[last]!;
  const lwRoom = E.lwRoom[x] as string | null;
  const lastWriter =
    w >= 0
      ? { room: W.room[w]!, chunk: nullable(W.chunk[w]!), epoch: T.epoch[last]!, seq: W.postSeq[w]! }
      : lwRoom !== null
        ? { room: lwRoom, chunk: nullable(E.lwChunk[x]!), epoch: E.lwEpoch[x]!, seq: E.lwPostSeq[x]! }
        : null;
  const pool = E.pool[x]!;
  const rank = s.ranks.label(poolRank(pool));
  const buffer = BUFFERS[poolBuffer(pool)] ?? String(poolBuffer(pool));
  const landed = last < 0 && (E.hcLoad[x]! < 0 || loadFinished(s, poolRank(pool), E.hcLoad[x]!));
  for (let page = E.lo[x]!; page < E.hi[x]!; page++) {
    out.push({
      rank,
      buffer,
      layer: -1,
      page,
      ownerRoom: E.owner[x] as string | null,
      lastWriter: lastWriter === null ? null : { ...lastWriter },
      landed,
      changedAt: E.changedSeq[x]!,
    });
  }
}

function loadFinished(s: ModelState, rank: number, load: number): boolean {
  const l = s.hicache.get(rank)?.loadById(load);
  return l == null || l.finished();
}

/** Whether the pages of extent `x` belong to `room` or have a write of it in flight. */
function extentOfRoom(s: ModelState, x: number, room: string): boolean {
  const { extents: E, targets: T, writes: W } = s.shadow;
  if (E.owner[x] === room) return true;
  for (let t = E.firstTarget[x]!; t >= 0; t = T.nextOnExtent[t]!) if (W.room[T.write[t]!] === room) return true;
  return false;
}

export function buildView(s: ModelState, filter?: { room?: string }): ModelStateView {
  const only = filter?.room;
  const rooms: RoomView[] = [];
  if (only !== undefined) {
    const r = s.rooms.find(only);
    if (r !== undefined) rooms.push(roomView(s, r));
  } else for (const r of s.rooms.rooms.values()) rooms.push(roomView(s, r));
  const pages: PageView[] = [];
  for (const x of s.shadow.extentsInOrder()) {
    if (only === undefined || extentOfRoom(s, x, only)) pageViews(s, x, pages);
  }
  return {
    atSeq: s.lastSeq,
    profile: s.profile,
    rooms,
    pages,
    dumpedPages: dumpedPageViews(s.pages, only),
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
