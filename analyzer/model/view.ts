// The state view `replay --at` and the UI show: rooms with their KVPoll state
// on each side, pages with owners and landed status, transfer queues,
// bootstrap threads, HiCache slots and collective positions per rank.

import type { ModelStateView, PageView, RoomView } from "./api.js";
import type { KVPollValue } from "../../domain/vocabulary.js";
import { toRanges } from "./evidence.js";
import { polledState } from "./kvpoll.js";
import type { DecodeReceiver } from "./receiver.js";
import type { SenderFacts, StoredRooms } from "./roomSnapshot.js";
import { assumptionsOf, type RoomRec } from "./rooms.js";
import { BUFFERS, poolBuffer, poolRank } from "./shadowMemory.js";
import { dumpedPageViews } from "./pagePath.js";
import { nullable } from "./slots.js";
import type { ModelState } from "./state.js";

// One pass over each side's ranks (a wedged incident's view holds tens of
// thousands of rooms); a room a restored model has not touched is read from
// its snapshot's rows, not made a record (rooms.ts RoomRegistry).
function roomView(s: ModelState, room: string, assumedBits: number, senders: Iterable<SenderFacts>, receivers: Iterable<DecodeReceiver>): RoomView {
  const assumed = assumptionsOf(assumedBits);
  return {
    room,
    ...(assumed.length > 0 && { assumed }),
    prefill: prefillView(s, senders),
    decode: decodeView(s, receivers),
  };
}

/** The prefill side; its state is the MIN over the ranks of what their poll() reports (§8 reduction), null when none is known. */
function prefillView(s: ModelState, senders: Iterable<SenderFacts>): RoomView["prefill"] {
  const ranks: string[] = [];
  let state: KVPollValue | null = null;
  let chunksPosted = 0;
  let chunksDone = 0;
  let queue: number | null = null;
  let changedAt = -Infinity;
  for (const x of senders) {
    ranks.push(s.ranks.label(x.rank));
    const polled = x.poll();
    if (state === null || polled < state) state = polled;
    chunksPosted = Math.max(chunksPosted, x.chunksPosted);
    chunksDone = Math.max(chunksDone, x.chunksDone);
    if (queue === null) queue = x.queue;
    changedAt = Math.max(changedAt, x.changedSeq);
  }
  return { state, ranks, chunksPosted, chunksDone, queue, changedAt: ranks.length === 0 ? null : changedAt };
}

/** The decode side; its state is the MIN over the ranks of their polled state without polling (a view changes nothing). */
function decodeView(s: ModelState, receivers: Iterable<DecodeReceiver>): RoomView["decode"] {
  const ranks: string[] = [];
  let state: KVPollValue | null = null;
  let chunksNotified = 0;
  let auxReceived = true;
  let pages: [number, number][] | null = null;
  let changedAt = -Infinity;
  for (const x of receivers) {
    ranks.push(s.ranks.label(x.rank));
    const polled = polledState(x.concluded, x.status);
    if (state === null || polled < state) state = polled;
    chunksNotified = Math.max(chunksNotified, x.transfer.chunksReceived());
    auxReceived &&= x.transfer.receivedAux;
    pages ??= toRanges(x.pages);
    changedAt = Math.max(changedAt, x.changedSeq);
  }
  return { state, ranks, chunksNotified, auxReceived: ranks.length > 0 && auxReceived, pages: pages ?? [], changedAt: ranks.length === 0 ? null : changedAt };
}

function recordView(s: ModelState, r: RoomRec): RoomView {
  return roomView(s, r.room, r.assumed, r.prefill.values(), r.decode.values());
}

function storedView(s: ModelState, rows: StoredRooms, row: number): RoomView {
  return roomView(s, rows.ids[row]!, rows.assumed(row), rows.senderFacts(row), rows.receiversOf(row));
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
    if (r !== undefined) rooms.push(recordView(s, r));
  } else {
    s.rooms.visit(
      (r) => rooms.push(recordView(s, r)),
      (rows, row) => rooms.push(storedView(s, rows, row)),
    );
  }
  const label = (r: number) => s.ranks.label(r);
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
    collectiveDivergences: s.collectives.splits(label, null).map((d) => ({
      group: d.group, where: d.where, name: d.name, seq: d.seq, kind: d.kind, op: d.op, ranks: d.ranks.map(label), culprits: d.culprits.map(label), changedAt: d.changedSeq,
    })),
  };
}
