// Handlers of the memory path: decode page allocation and release, HiCache
// layer-wise loads and waits, kernel stores and reads checked against the
// shadow memory (docs/hicache-indexk.md §1.2–§1.4, §2.1–§2.2;
// DESIGN.md seed cases 3 and 4).

import { accessorWaits, type LayerLoad } from "./hicache.js";
import { countPages, expandPages, NO_RANGES, storeRanges } from "./evidence.js";
import { DECODE, PREFILL } from "./ranks.js";
import { ASSUMED, assumptionsOf, FLAG, type RoomRec } from "./rooms.js";
import { BUFFERS, bufferId } from "./shadowMemory.js";
import { checkRead, type ReadIssue } from "./shadowReads.js";
import { SEEN, type ModelState } from "./state.js";
import type { EventPlace } from "./api.js";
import type { EventOf } from "../../domain/domainEvent.js";

function sideOf(ev: EventPlace, fallback: number): number {
  return ev.role === "prefill" ? PREFILL : ev.role === "decode" ? DECODE : fallback;
}

/** `kv.alloc` (decode): pages given to a room start a new epoch in the shadow. */
export function onKvAlloc(s: ModelState, ev: EventOf<"kv.alloc">): void {
  if (ev.room === undefined) return;
  s.seen |= SEEN.alloc;
  const rank = s.rankOf(ev, sideOf(ev, DECODE));
  const r = s.room(ev.room, ev);
  const d = s.receiver(r, rank, ev);
  const ranges = ev.pages ?? NO_RANGES;
  const seq = ev.seq;
  for (let k = 0; k < ranges.length; k++) s.shadow.alloc(rank, ranges[k]![0], ranges[k]![1], r.room, seq);
  if (d.pages.length === 0) d.pages = expandPages(ranges);
  d.freedSeq = -1;
}

/**
 * `kv.free` (decode): pages taken from a room (release_kv_cache on Failed or
 * after the request finished); without pages, the room's own on this rank.
 * Writes for the room still in flight become orphans: the stale-slot-reuse
 * race (docs/hicache-indexk.md §1.4 race #1).
 */
export function onKvFree(s: ModelState, ev: EventOf<"kv.free">): void {
  s.seen |= SEEN.alloc;
  const rank = s.rankOf(ev, sideOf(ev, DECODE));
  const ranges = ev.pages ?? NO_RANGES;
  const seq = ev.seq;
  const r = ev.room === undefined ? undefined : s.rooms.find(ev.room);
  const d = r?.decode.get(rank);
  // The pages a free names are the room's even when no allocation named them: a late write of the room lands there.
  // (A room the model no longer holds is not brought back: most are settled rooms freed after they retired.)
  if (r !== undefined && d !== undefined && d.pages.length === 0 && countPages(ranges) > 0) {
    d.pages = expandPages(ranges);
    r.assumed |= ASSUMED.pagesFromFree;
  }
  if (countPages(ranges) === 0 && d !== undefined) s.shadow.freePages(rank, d.pages, seq);
  else for (let k = 0; k < ranges.length; k++) s.shadow.free(rank, ranges[k]![0], ranges[k]![1], seq);
  if (d !== undefined) d.freedSeq = seq;
}

/** `hicache.load`: `start_loading()` on a producer slot; the pages fill layer by layer. */
export function onHicacheLoad(s: ModelState, ev: EventOf<"hicache.load">): void {
  s.seen |= SEEN.hicacheLoad;
  const rank = s.rankOf(ev, sideOf(ev, PREFILL));
  const { load } = s.counter(rank).startLoad(s.nextLoadId++, ev.layers ?? 1, ev.seq, ev.slot);
  const ranges = ev.pages ?? NO_RANGES;
  for (let k = 0; k < ranges.length; k++) s.shadow.hicacheLoad(rank, ranges[k]![0], ranges[k]![1], load.id, ev.seq);
}

/** `hicache.layer`: `complete(layer)` recorded for the load on `slot`. */
export function onHicacheLayer(s: ModelState, ev: EventOf<"hicache.layer">): void {
  const rank = s.rankOf(ev, sideOf(ev, PREFILL));
  const slot = ev.slot ?? s.counter(rank).producerIndex;
  const layer = ev.layer;
  if (layer === undefined || slot < 0) return;
  s.counter(rank).slots[slot]?.completeLayer(layer, ev.seq);
}

/** `hicache.wait`: a reader called `wait_until(layer)` with the consumer slot set. */
export function onHicacheWait(s: ModelState, ev: EventOf<"hicache.wait">): void {
  s.seen |= SEEN.hicacheWait;
  const rank = s.rankOf(ev, sideOf(ev, PREFILL));
  const c = s.counter(rank);
  if (ev.slot !== undefined) c.setConsumer(ev.slot, ev.seq);
  if (ev.layer !== undefined) c.waitUntil(ev.layer, ev.seq);
}

/** `kernel.store`: lands at once; only pages the shadow already tracks are touched (none, on a rank without transfers). */
export function onKernelStore(s: ModelState, ev: EventOf<"kernel.store">): void {
  const buf = bufferId(ev.buffer ?? "index_k");
  if (buf < 0) return;
  const rank = s.rankOf(ev, sideOf(ev, DECODE));
  if (!s.shadow.tracksPool(rank, buf)) return;
  const ranges = storeRanges(ev.locs, ev.pages ?? NO_RANGES, s.profile.indexKPageSize);
  for (let k = 0; k < ranges.length; k++) s.shadow.store(rank, buf, ev.layer ?? null, ranges[k]![0], ranges[k]![1], ev.room ?? null, ev.seq);
}

/**
 * `kernel.read`: every page read is checked against the shadow memory. One
 * finding per room and kind: the first read proves it.
 */
export function onKernelRead(s: ModelState, ev: EventOf<"kernel.read">): void {
  s.seen |= SEEN.kernelRead;
  const buf = bufferId(ev.buffer ?? "index_k");
  if (buf < 0) return;
  const rank = s.rankOf(ev, sideOf(ev, DECODE));
  const layer = ev.layer ?? 0;
  const consumer = ev.consumer ?? null;
  const counter = s.hicache.get(rank);
  if (consumer !== null && counter !== undefined) counter.setConsumer(consumer, ev.seq);
  if (s.seen & SEEN.post) s.count("read-before-landed-write");
  if (s.seen & SEEN.alloc) s.count("stale-slot-reuse");
  if (counter !== undefined && counter.loading()) s.count("hicache-ungated-read");
  const ranges = ev.pages ?? NO_RANGES;
  const found: ReadIssue[] = [];
  for (let k = 0; k < ranges.length; k++) checkRead(s.shadow, rank, buf, layer, ranges[k]![0], ranges[k]![1], ev.room ?? null, s.layerLoaded, found);
  if (found.length > 0 && ev.room !== undefined && found.some((i) => i.assumedOwner)) s.room(ev.room, ev).assumed |= ASSUMED.readerOwns;
  for (const issue of found) report(s, ev, rank, buf, layer, issue, consumer);
}

/** What the model assumed about the rooms a violation names, each prefixed with its room. */
function assumedFor(s: ModelState, rooms: (string | null)[]): string[] {
  const out: string[] = [];
  for (const room of new Set(rooms)) {
    const bits = room === null ? 0 : s.rooms.find(room)?.assumed ?? 0;
    for (const text of assumptionsOf(bits)) out.push(`room ${room}: ${text}`);
  }
  return out;
}

const STALE_HOW: Record<string, string> = {
  "in-flight": "freed while that write was in flight, given out again, and read before the write landed",
  "landed-after-reuse": "freed while that write was in flight; the write landed after the page was given out again",
  "posted-after-free": "freed, and that write was posted only after the free; it landed on the page's new owner",
  "non-owner-write": "written by a room that never owned it",
};

function report(s: ModelState, ev: EventOf<"kernel.read">, rank: number, buf: number, layer: number, issue: ReadIssue, consumer: number | null): void {
  const r: RoomRec | undefined = ev.room === undefined ? undefined : s.room(ev.room, ev);
  const where = `${BUFFERS[buf]} page ${issue.page} layer ${layer} on ${s.ranks.label(rank)}`;
  if (issue.check === "stale-slot-reuse") {
    if (!once(r, FLAG.stale)) return;
    s.violation(
      "stale-slot-reuse",
      ev,
      [issue.free, issue.post, issue.allocSeq, issue.land ?? -1, ev.seq],
      `room ${ev.room ?? "?"} read ${where}, which holds room ${issue.room}'s chunk ${issue.chunk ?? "?"} write: the page was ${STALE_HOW[issue.mechanism]}`,
      {
        buffer: BUFFERS[buf], layer, page: issue.page, previousRoom: issue.room, chunk: issue.chunk, free: issue.free, post: issue.post, alloc: issue.allocSeq,
        land: issue.land, mechanism: issue.mechanism, assumptions: assumedFor(s, [ev.room ?? null, issue.room]),
      },
      ev.room,
      rank,
    );
    return;
  }
  if (issue.check === "read-before-landed-write") {
    if (!once(r, FLAG.beforeLanded)) return;
    const w = issue.write;
    s.violation(
      "read-before-landed-write",
      ev,
      [w.postSeq, ev.seq],
      `room ${ev.room ?? w.room} read ${where} before chunk ${w.chunk ?? "?"} of room ${w.room} (posted by ${s.ranks.label(w.poster)}) landed`,
      { buffer: BUFFERS[buf], layer, page: issue.page, writerRoom: w.room, chunk: w.chunk, poster: s.ranks.label(w.poster), assumptions: assumedFor(s, [ev.room ?? null, w.room]) },
      ev.room ?? w.room,
      rank,
    );
    return;
  }
  const load = s.hicache.get(rank)?.loadById(issue.load);
  if (load == null) return;
  const gate = gated(s, ev, load, layer, consumer);
  if (gate.gated !== false || !once(r, FLAG.ungated)) return;
  s.violation(
    "hicache-ungated-read",
    ev,
    [load.startSeq, load.lastLayerSeq ?? -1, ev.seq],
    `${gate.accessor ?? "a reader"} read ${where} while HiCache load ${load.id} (slot ${load.slot}) had completed ${load.layersDone} of ${load.layers} layers, without waiting: ${gate.why}`,
    { buffer: BUFFERS[buf], layer, page: issue.page, accessor: gate.accessor, slot: load.slot, consumer, layersDone: load.layersDone, layers: load.layers, raggedAccessorsWait: s.profile.indexKRaggedAccessorsWait, why: gate.why },
    ev.room,
    rank,
  );
}

function once(r: RoomRec | undefined, bit: number): boolean {
  if (r === undefined) return true;
  if (r.flags & bit) return false;
  r.flags |= bit;
  return true;
}

/**
 * Whether the read was ordered after the layer's load event. With
 * `hicache.wait` probes, the evidence decides (a wait on the consumer slot for
 * this layer or a later one); without them, the profile's accessor table
 * (§1.3). A consumer index of -1 makes `wait_until` a no-op. Null: unknown
 * accessor and no wait probes, so the read is not judged. [inference] A read
 * on another stream than the wait is not modelled (§1.3 caveat).
 */
function gated(s: ModelState, ev: EventOf<"kernel.read">, load: LayerLoad, layer: number, consumer: number | null): { gated: boolean | null; accessor: string | null; why: string } {
  const accessor = ev.accessor ?? null;
  if (consumer !== null && consumer < 0) return { gated: false, accessor, why: "consumer index -1: wait_until is a no-op" };
  if (consumer !== null && consumer !== load.slot) return { gated: false, accessor, why: `the consumer slot ${consumer} is not the loading slot ${load.slot}` };
  if (s.seen & SEEN.hicacheWait) {
    return load.waitedMax >= layer
      ? { gated: true, accessor, why: "waited" }
      : { gated: false, accessor, why: `no wait_until(${layer}) on slot ${load.slot} before the read` };
  }
  if (accessor === null) return { gated: null, accessor, why: "accessor unknown" };
  const waits = accessorWaits(accessor, s.profile);
  if (waits === null) return { gated: null, accessor, why: "accessor not in the reference's table" };
  return waits
    ? { gated: true, accessor, why: "the accessor waits in this version" }
    : { gated: false, accessor, why: `${accessor} does not call wait_until before #22811 (SGLang ${s.profile.version})` };
}
