// Snapshots: the whole model state as plain nested arrays (no field names),
// rooms in page and write records replaced by indices into one string table.
// Decoding rebuilds every map in its original insertion order, so a restored
// model continues exactly as the original would have.

import type { Profile } from "./api.js";
import { BootstrapThread } from "./bootstrap.js";
import { CollectiveTracker } from "./collectives.js";
import { LayerDoneCounter } from "./hicache.js";
import { RankRegistry } from "./ranks.js";
import { RoomRegistry } from "./rooms.js";
import { poolBuffer, poolRank, ShadowMemory } from "./shadowMemory.js";
import { nullable, orNaN } from "./slots.js";
import { ModelState } from "./state.js";

const VERSION = 1;

class Strings {
  readonly list: string[] = [];
  private readonly index = new Map<string, number>();
  id(s: string | null): number {
    if (s === null) return -1;
    let i = this.index.get(s);
    if (i === undefined) {
      this.index.set(s, (i = this.list.length));
      this.list.push(s);
    }
    return i;
  }
}

function encodeShadow(sh: ShadowMemory, str: Strings): unknown[] {
  const { pages: P, writes: W, targets: T } = sh;
  const pages: unknown[] = [];
  for (const x of sh.pagesInOrder()) {
    const layerStores = P.layerStores[x];
    pages.push([
      P.pool[x], P.page[x], str.id(P.owner[x]!), P.epoch[x], P.allocSeq[x], P.freeSeq[x], P.prevFreeSeq[x], str.id(P.lwRoom[x]!),
      nullable(P.lwChunk[x]!), P.lwEpoch[x], P.lwPostSeq[x], P.lwLandSeq[x], P.lwOrphanFree[x], P.hcLoad[x], P.hcSeq[x], P.changedSeq[x],
      layerStores == null ? 0 : [...layerStores].map(([l, [room, seq]]) => [l, str.id(room), seq]),
    ]);
  }
  const writes: unknown[] = [];
  for (const w of sh.writesInOrder()) {
    const t: number[] = [];
    for (let x = W.firstTarget[w]!; x >= 0; x = T.nextInWrite[x]!) {
      const page = T.page[x]!;
      t.push(P.pool[page]!, P.page[page]!, T.epoch[x]!, T.orphanFree[x]!);
    }
    writes.push([W.id[w], str.id(W.room[w]!), nullable(W.chunk[w]!), W.poster[w], W.target[w], W.buf[w], W.postSeq[w], nullable(W.queue[w]!), t]);
  }
  const loads: unknown[] = [];
  for (const [id, list] of sh.loadPages) {
    const refs: number[] = [];
    for (const x of list.pages) if (P.hcLoad[x] === id) refs.push(P.pool[x]!, P.page[x]!);
    loads.push([id, refs]);
  }
  return [sh.nextWriteId, pages, writes, loads];
}

/** The shadow memory, and its writes' slots by id (rooms name their writes by id). */
function decodeShadow(a: unknown[], strs: string[]): { shadow: ShadowMemory; writeSlots: Map<number, number> } {
  const sh = new ShadowMemory();
  const P = sh.pages;
  const s = (i: number): string | null => (i < 0 ? null : strs[i]!);
  sh.nextWriteId = a[0] as number;
  for (const row of a[1] as unknown[][]) {
    const [pool, page, owner, epoch, allocSeq, freeSeq, prevFreeSeq, lwRoom, lwChunk, lwEpoch, lwPostSeq, lwLandSeq, lwOrphanFree, hcLoad, hcSeq, changedSeq] =
      row as number[];
    const x = sh.track(pool!, page!, changedSeq!);
    P.owner[x] = s(owner!);
    P.epoch[x] = epoch!;
    P.allocSeq[x] = allocSeq!;
    P.freeSeq[x] = freeSeq!;
    P.prevFreeSeq[x] = prevFreeSeq!;
    P.lwRoom[x] = s(lwRoom!);
    P.lwChunk[x] = orNaN(lwChunk as number | null);
    P.lwEpoch[x] = lwEpoch!;
    P.lwPostSeq[x] = lwPostSeq!;
    P.lwLandSeq[x] = lwLandSeq!;
    P.lwOrphanFree[x] = lwOrphanFree!;
    P.hcLoad[x] = hcLoad!;
    P.hcSeq[x] = hcSeq!;
    if (row[16] !== 0) P.layerStores[x] = new Map((row[16] as number[][]).map(([l, room, seq]) => [l!, [s(room!), seq!]]));
  }
  const writeSlots = new Map<number, number>();
  for (const row of a[2] as unknown[][]) {
    const [id, room, chunk, poster, target, buf, postSeq, queue, t] = row as [number, number, number | null, number, number, number, number, number | null, number[]];
    const w = sh.openWrite(id, s(room)!, chunk, poster, target, buf, postSeq, queue);
    for (let i = 0; i < t.length; i += 4) {
      const page = sh.find(poolRank(t[i]!), poolBuffer(t[i]!), t[i + 1]!);
      if (page < 0) throw new Error(`snapshot: write ${id} targets page ${t[i + 1]} of pool ${t[i]} that the snapshot lacks`);
      sh.addTarget(w, page, t[i + 2]!, t[i + 3]!);
    }
    writeSlots.set(id, w);
  }
  for (const [id, refs] of a[3] as [number, number[]][]) {
    const pages: number[] = [];
    for (let i = 0; i < refs.length; i += 2) pages.push(sh.find(poolRank(refs[i]!), poolBuffer(refs[i]!), refs[i + 1]!));
    sh.loadPages.set(id, { rank: refs.length > 0 ? poolRank(refs[0]!) : -1, pages });
  }
  return { shadow: sh, writeSlots };
}

export function encodeState(s: ModelState): unknown {
  const str = new Strings();
  const shadow = encodeShadow(s.shadow, str);
  return [
    VERSION,
    s.qualifyHosts ? 1 : 0,
    [s.lastSeq, s.lastTsUs, s.applied, s.nextLoadId, s.nextDeadlineUs === Infinity ? null : s.nextDeadlineUs, s.seen, s.configFlags, s.lastAbortSeq],
    [...s.checked],
    s.ranks.encode(),
    s.rooms.encode((w) => s.shadow.writes.id[w]!),
    str.list,
    shadow,
    [...s.threads.values()].map((t) => t.encode()),
    [...s.hicache].map(([rank, c]) => [rank, c.encode()]),
    s.collectives.encode(),
    [...s.queues.values()].map((q) => [q.rank, q.queue, q.depth, q.changedSeq]),
    [...s.roleDtypes],
    [...s.auxHolders].map(([k, [room, seq]]) => [k, room, seq]),
  ];
}

export function decodeState(profile: Profile, snapshot: unknown): ModelState {
  if (!Array.isArray(snapshot) || snapshot[0] !== VERSION) throw new Error("not a kvrewind model snapshot (or another version)");
  const a = snapshot as unknown[];
  const s = new ModelState(profile, a[1] === 1);
  const [lastSeq, lastTsUs, applied, nextLoadId, nextDeadline, seen, configFlags, lastAbortSeq] = a[2] as number[];
  Object.assign(s, { lastSeq, lastTsUs, applied, nextLoadId, nextDeadlineUs: nextDeadline ?? Infinity, seen, configFlags, lastAbortSeq });
  s.checked = [...(a[3] as number[])];
  s.ranks = RankRegistry.decode(a[4] as unknown[], s.qualifyHosts);
  const { shadow, writeSlots } = decodeShadow(a[7] as unknown[], a[6] as string[]);
  s.shadow = shadow;
  s.rooms = RoomRegistry.decode(a[5] as unknown[], (id) => {
    const w = writeSlots.get(id);
    if (w === undefined) throw new Error(`snapshot: a room refers to write ${id} that the snapshot lacks`);
    return w;
  });
  for (const t of a[8] as unknown[][]) s.threads.set(t[0] as number, BootstrapThread.decode(t));
  for (const [rank, c] of a[9] as [number, unknown[]][]) s.hicache.set(rank, LayerDoneCounter.decode(c));
  s.collectives = CollectiveTracker.decode(a[10] as unknown[]);
  for (const [rank, queue, depth, changedSeq] of a[11] as number[][]) s.queues.set(rank! * 1024 + queue!, { rank: rank!, queue: queue!, depth: depth!, changedSeq: changedSeq! });
  s.roleDtypes = [...(a[12] as (string | null)[])];
  for (const [k, room, seq] of a[13] as [number, string, number][]) s.auxHolders.set(k, [room, seq]);
  return s;
}
