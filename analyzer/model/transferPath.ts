// Handlers of the KV transfer path: decode metadata, prefill chunk posts and
// completions, decode notifications and polls, metadata readiness
// (docs/protocol.md §3.4, §5, §6, §8–§9).

import { KVPoll } from "../../domain/vocabulary.js";
import { countPages, expandPages, NO_RANGES } from "./evidence.js";
import { DECODE, PREFILL } from "./ranks.js";
import type { DecodeReceiver } from "./receiver.js";
import { ASSUMED, FLAG, type RoomRec } from "./rooms.js";
import { routeQueue } from "./sender.js";
import { BUF_INDEX_K, BUF_KV } from "./shadowMemory.js";
import { SEEN, type ModelState } from "./state.js";
import { notifOf } from "./notif.js";
import { postTargets, sameChunk, type LandedBy } from "./transferPairing.js";
import { decodeTimedOut, prefillTimedOut } from "./stalls.js";
import type { EventOf } from "../../domain/domainEvent.js";

/** `kv.meta`: decode's init + send_metadata for a room: WaitingForInput, init_time, its pages. */
export function onKvMeta(s: ModelState, ev: EventOf<"kv.meta">): void {
  if (ev.room === undefined) return;
  const rank = s.rankOf(ev, DECODE);
  const r = s.room(ev.room, ev);
  const d = s.receiver(r, rank, ev);
  if (ev.required_prefill_response_num !== undefined) d.transfer.requiredResponses = ev.required_prefill_response_num;
  if (ev.expects_state !== undefined) d.transfer.expectsState = ev.expects_state;
  d.metadataSent(s.profile.backend, expandPages(ev.pages ?? NO_RANGES), ev.tsUs, ev.seq);
  s.count("transfer-stall");
  r.progressSeq = ev.seq;
  const port = ev.dst_port;
  if (port !== undefined && !r.dstPorts.includes(port)) r.dstPorts.push(port);
  s.noteDeadline(d.waitingDeadlineUs(s.profile));
  if (ev.aux_index !== undefined) checkAuxIndex(s, ev, r, d, ev.aux_index);
}

/** Two live rooms of one decode rank given the same metadata buffer slot (pd §3.4 "metadata buffer index collision"). */
function checkAuxIndex(s: ModelState, ev: EventOf<"kv.meta">, r: RoomRec, d: DecodeReceiver, aux: number): void {
  s.count("metadata-collision");
  d.auxIndex = aux;
  const key = d.rank * 2 ** 20 + aux;
  const holder = s.auxHolders.get(key);
  s.auxHolders.set(key, [r.room, ev.seq]);
  if (holder === undefined || holder[0] === r.room) return;
  const other = s.rooms.find(holder[0])?.decode.get(d.rank);
  if (other === undefined || other.concluded !== null || other.freedSeq >= 0) return;
  if (r.flags & FLAG.collision) return;
  r.flags |= FLAG.collision;
  s.violation(
    "metadata-collision",
    ev,
    [holder[1], ev.seq],
    `room ${r.room} was given metadata buffer ${aux} on ${s.ranks.label(d.rank)} while room ${holder[0]} still holds it`,
    { auxIndex: aux, otherRoom: holder[0] },
    r.room,
    d.rank,
  );
}

/**
 * `kv.post`: a transfer worker posted a chunk (§6 worker loop). The chunk's
 * decode pages are `attrs.dst_pages` when the probe gives them, else the
 * next pages of the room's metadata page list in sequence order (the sender
 * slices `dst_kv_indices` by the chunk's index slice). The last chunk also
 * carries the state (index-K) pages of the whole room (§6 step 3, §2.4).
 * It lands on the equal-TP decode peer when there is one, else on every
 * decode rank of the room.
 */
export function onKvPost(s: ModelState, ev: EventOf<"kv.post">): void {
  if (ev.room === undefined) return;
  s.seen |= SEEN.post;
  const rank = s.rankOf(ev, PREFILL);
  const r = s.room(ev.room, ev);
  // The post is a fact; a sender that starts with it is one whose bootstrap the evidence lacks.
  if (!r.prefill.has(rank)) r.assumed |= ASSUMED.noBootstrap;
  const sender = s.sender(r, rank, ev);
  const isLast = ev.last ?? false;
  const chunk = ev.chunk ?? null;
  const n = countPages(ev.pages ?? NO_RANGES);
  const queue = ev.queue ?? routeQueue(s.profile.queueRouting, s.profile.transferQueues, r.room, r.dstPorts.length > 0 ? r.dstPorts : null);
  sender.queue = queue;
  const start = sender.pagesPosted;
  sender.chunkPosted(s.profile.backend, n, chunk, isLast, ev.seq);
  r.progressSeq = ev.seq;
  if (queue !== null) s.queueDelta(rank, queue, 1, ev.seq);
  const dst = ev.dst_pages ?? NO_RANGES;
  for (const d of postTargets(s.ranks.ranks[rank]!.tp, r.decode.values(), (d) => s.ranks.ranks[d.rank]!.tp)) {
    if (d.freedSeq >= 0) r.assumed |= ASSUMED.postAfterFree;
    if (dst.length > 0) {
      if (countPages(dst) > 0) r.inflight.push(s.shadow.postRanges(r.room, chunk, rank, d.rank, BUF_KV, dst, ev.seq, queue, d.freedSeq));
    } else if (Math.min(start + n, d.pages.length) > start) {
      r.inflight.push(s.shadow.post(r.room, chunk, rank, d.rank, BUF_KV, d.pages, ev.seq, queue, d.freedSeq, start, start + n));
    }
    if (isLast && d.pages.length > 0) {
      r.inflight.push(s.shadow.post(r.room, chunk, rank, d.rank, BUF_INDEX_K, d.pages, ev.seq, queue, d.freedSeq));
    }
  }
}

const KV_ONLY = [BUF_KV];
const INDEX_K_ONLY = [BUF_INDEX_K];
const BOTH = [BUF_KV, BUF_INDEX_K];

/** Matches any value of a landWrites filter field. */
const ANY = -2;

/**
 * Lands the room's in-flight writes that match (poster, target, buffer,
 * chunk); ANY matches everything. Each landing is logged with its post and
 * `by`, the kind of event that landed it. Returns how many landed.
 */
function landWrites(s: ModelState, r: RoomRec, seq: number, by: LandedBy, poster: number, target: number, buf: number, chunk: number | null): number {
  const W = s.shadow.writes;
  const chunkCode = chunk === null ? NaN : chunk;
  let landed = 0;
  for (let i = 0; i < r.inflight.length; ) {
    const w = r.inflight[i]!;
    if (
      (poster === ANY || W.poster[w] === poster) &&
      (target === ANY || W.target[w] === target) &&
      (buf === ANY || W.buf[w] === buf) &&
      (chunk === ANY || sameChunk(W.chunk[w]!, chunkCode))
    ) {
      s.landings.add(W.postSeq[w]!, seq, by);
      s.shadow.land(w, seq);
      removeAt(r.inflight, i);
      landed++;
    } else i++;
  }
  return landed;
}

/**
 * A notification says the room's data is on its decode pages (the last KV
 * chunk, the state, Mooncake's Success) though no post of it is in the
 * evidence: the landing is a fact, so the room is the pages' last writer.
 */
function landedWithoutPost(s: ModelState, r: RoomRec, d: DecodeReceiver, bufs: readonly number[], seq: number): void {
  const pages = d.pages;
  for (let i = 0; i < pages.length; ) {
    let j = i + 1;
    while (j < pages.length && pages[j] === pages[j - 1]! + 1) j++;
    for (const buf of bufs) s.shadow.store(d.rank, buf, null, pages[i]!, pages[j - 1]! + 1, r.room, seq);
    i = j;
  }
}

/** Removes item `i`, keeping the order (without the array of removed items `splice` returns). */
function removeAt(list: number[], i: number): void {
  for (let k = i + 1; k < list.length; k++) list[k - 1] = list[k]!;
  list.pop();
}

/** `kv.done`: the chunk's transfer handles are DONE: its data has landed; the last chunk concludes Success. */
export function onKvDone(s: ModelState, ev: EventOf<"kv.done">): void {
  if (ev.room === undefined) return;
  const chunk = ev.chunk ?? null;
  const rank = s.rankOf(ev, PREFILL);
  const r = s.room(ev.room, ev);
  const sender = s.sender(r, rank, ev);
  sender.chunkDone(s.profile.backend, chunk, ev.seq);
  r.progressSeq = ev.seq;
  if (sender.queue !== null) s.queueDelta(rank, sender.queue, -1, ev.seq);
  landWrites(s, r, ev.seq, "done", rank, ANY, ANY, chunk);
}

/**
 * `kv.notify` on decode: a NIXL notification (delivered after the data it
 * covers) updates TransferStatus and lands the matching write on this rank;
 * Mooncake's status message (`attrs.status`) concludes the room per §5.2.
 */
export function onKvNotify(s: ModelState, ev: EventOf<"kv.notify">): void {
  s.seen |= SEEN.notify;
  const n = notifOf(ev);
  const room = ev.room;
  if (room === undefined) return;
  const rank = s.rankOf(ev, DECODE);
  const r = s.room(room, ev);
  const d = s.receiver(r, rank, ev);
  r.progressSeq = ev.seq;
  if (n !== null) {
    d.transfer.apply(n);
    if (n.kind === "kv" || n.kind === "stg") {
      if (landWrites(s, r, ev.seq, "notify", ANY, rank, BUF_KV, n.chunk) === 0 && n.isLast) landedWithoutPost(s, r, d, KV_ONLY, ev.seq);
    } else if (n.kind === "state" && landWrites(s, r, ev.seq, "notify", ANY, rank, BUF_INDEX_K, ANY) === 0) landedWithoutPost(s, r, d, INDEX_K_ONLY, ev.seq);
    d.poll(s.profile.backend, ev.seq);
    return;
  }
  const status = ev.status;
  if (status === KVPoll.Failed) d.set(s.profile.backend, KVPoll.Failed, ev.seq, "Failed to get kvcache from prefill instance, it might be dead");
  else if (status === KVPoll.Success) {
    const from = ev.prefill_rank ?? 0;
    if (!d.successFrom.includes(from)) d.successFrom.push(from);
    if (landWrites(s, r, ev.seq, "notify", ANY, rank, ANY, ANY) === 0) landedWithoutPost(s, r, d, BOTH, ev.seq);
    if (d.successFrom.length >= d.transfer.requiredResponses) d.set(s.profile.backend, KVPoll.Success, ev.seq);
  }
}

/**
 * `kv.poll`: what a rank's poll returned (`local`) and the MIN-reduced value
 * the scheduler acted on (`reduced`). A decode Success while the model's
 * TransferStatus is not done means completion was declared without every
 * chunk, the aux or the state (DESIGN.md seed 7).
 */
export function onKvPoll(s: ModelState, ev: EventOf<"kv.poll">): void {
  if (ev.room === undefined) return;
  const local = ev.local ?? ev.state ?? null;
  const reduced = ev.reduced ?? null;
  const isDecode = ev.role === "decode";
  const rank = s.rankOf(ev, isDecode ? DECODE : PREFILL);
  const r = s.room(ev.room, ev);
  if (!isDecode) {
    const sender = s.sender(r, rank, ev);
    if (local === KVPoll.Failed) sender.set(s.profile.backend, KVPoll.Failed, ev.seq);
    else if (local === KVPoll.WaitingForInput) sender.set(s.profile.backend, KVPoll.WaitingForInput, ev.seq);
    return;
  }
  s.seen |= SEEN.decodePoll;
  const d = s.receiver(r, rank, ev);
  if (local === KVPoll.Failed) d.set(s.profile.backend, KVPoll.Failed, ev.seq);
  const success = reduced === KVPoll.Success || local === KVPoll.Success;
  if (!success || s.profile.backend !== "nixl" || d.metaSeq === null) return;
  s.count("incomplete-completion");
  if (d.poll(s.profile.backend, ev.seq) === KVPoll.Success || r.flags & FLAG.incomplete) return;
  r.flags |= FLAG.incomplete;
  const missing = d.transfer.missing();
  s.violation(
    "incomplete-completion",
    ev,
    [d.metaSeq, d.changedSeq, ev.seq],
    `decode ${s.ranks.label(rank)} took room ${r.room} as Success but TransferStatus.is_done() is false: missing ${missing.join(", ")}`,
    { missing, local, reduced, chunksReceived: d.transfer.chunksReceived(), auxReceived: d.transfer.receivedAux },
    r.room,
    rank,
  );
}

/** `kv.timeout` probe: a bootstrap (prefill) or waiting (decode) timeout fired. */
export function onKvTimeout(s: ModelState, ev: EventOf<"kv.timeout">): void {
  if (ev.room === undefined) return;
  const r = s.room(ev.room, ev);
  if (ev.role === "prefill") {
    prefillTimedOut(s, r, s.sender(r, s.rankOf(ev, PREFILL), ev), ev, "log");
    return;
  }
  const d = s.receiver(r, s.rankOf(ev, DECODE), ev);
  decodeTimedOut(s, r, d, ev, "log");
}

/**
 * `xfer.notif_sent`: the NIXL debug line `sending kvcache to {peer} with notif
 * {room}_kv_{chunk}_{is_last}_{src}`: a chunk posted (no page evidence).
 */
export function onNotifSent(s: ModelState, ev: EventOf<"xfer.notif_sent">): void {
  const n = notifOf(ev);
  const room = ev.room;
  if (room === undefined) return;
  if (n !== null && n.kind !== "kv" && n.kind !== "stg") return;
  const rank = s.rankOf(ev, PREFILL);
  const r = s.room(room, ev);
  const isLast = n?.isLast ?? ev.isLast ?? false;
  s.sender(r, rank, ev).chunkPosted(s.profile.backend, 0, n?.chunk ?? ev.chunk ?? null, isLast, ev.seq);
  r.progressSeq = ev.seq;
}

/** `xfer.error`: a transport error fails the room on the prefill rank. */
export function onTransferError(s: ModelState, ev: EventOf<"xfer.error">): void {
  if (ev.room === undefined) return;
  const r = s.room(ev.room, ev);
  s.sender(r, s.rankOf(ev, PREFILL), ev).set(s.profile.backend, KVPoll.Failed, ev.seq, ev.error ?? "transport error");
}

/** `pd.metadata_not_ready`: the commit found the metadata unset after the readiness gate (§3.4). */
export function onMetadataNotReady(s: ModelState, ev: EventOf<"pd.metadata_not_ready">): void {
  s.count("incomplete-completion");
  const room = ev.room ?? null;
  const r = room === null ? undefined : s.room(room, ev);
  if (r !== undefined) {
    if (r.flags & FLAG.incomplete) return;
    r.flags |= FLAG.incomplete;
  }
  const rank = s.rankOf(ev, DECODE);
  const d = r?.decode.get(rank);
  s.violation(
    "incomplete-completion",
    ev,
    [d?.metaSeq ?? -1, d?.changedSeq ?? -1, ev.seq],
    `decode committed room ${room ?? "?"} with its metadata not landed (aux outside the completion check)`,
    { metadataBufferIndex: ev.metadataBufferIndex ?? null },
    room,
    rank,
  );
}

/** `pd.context_corruption`: decode read another room's metadata from its buffer slot (§3.4). */
export function onContextCorruption(s: ModelState, ev: EventOf<"pd.context_corruption">): void {
  s.count("metadata-collision");
  const other = ev.actualRoom ?? null;
  const rank = s.rankOf(ev, DECODE);
  const holder = other === null ? undefined : s.rooms.find(other)?.decode.get(rank);
  s.violation(
    "metadata-collision",
    ev,
    [holder?.metaSeq ?? -1, ev.seq],
    `room ${ev.room ?? "?"} received metadata of room ${other ?? "?"}: metadata buffer index collision`,
    { actualRoom: other, metadataBufferIndex: ev.metadataBufferIndex ?? null },
    ev.room,
    rank,
  );
}
