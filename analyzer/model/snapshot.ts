// Snapshots: the whole model state as plain nested arrays (no field names),
// rooms in page and write records replaced by indices into one string table;
// the rooms themselves as float64 columns (roomSnapshot.ts).
// Decoding rebuilds every map in its original insertion order, so a restored
// model continues exactly as the original would have.

import type { Profile } from "./api.js";
import { BootstrapThread } from "./bootstrap.js";
import { CollectiveTracker } from "./collectives.js";
import { LayerDoneCounter } from "./hicache.js";
import { RankRegistry } from "./ranks.js";
import { decodeRooms, encodeRooms } from "./roomSnapshot.js";
import { ShadowMemory } from "./shadowMemory.js";
import { decodePages, encodePages } from "./pagePath.js";
import { nullable, orNaN } from "./slots.js";
import { ModelState } from "./state.js";

/**
 * 2: the shadow memory as page extents; 3: the dumped pages (their records,
 * not their bytes); 4: the rooms as columns (roomSnapshot.ts); 5: each room's
 * earliest deadline, settledness and late-write wait beside them.
 */
const VERSION = 5;

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
  const { extents: E, writes: W, targets: T } = sh;
  const extents: unknown[] = [];
  for (const x of sh.extentsInOrder()) {
    const layerStores = E.layerStores[x];
    extents.push([
      E.pool[x], E.lo[x], E.hi[x], str.id(E.owner[x]!), E.epoch[x], E.allocSeq[x], E.freeSeq[x], E.prevFreeSeq[x], str.id(E.lwRoom[x]!),
      nullable(E.lwChunk[x]!), E.lwEpoch[x], E.lwPostSeq[x], E.lwLandSeq[x], E.lwOrphanFree[x], E.hcLoad[x], E.hcSeq[x], E.changedSeq[x],
      layerStores == null ? 0 : [...layerStores].map(([l, [room, seq]]) => [l, str.id(room), seq]),
    ]);
  }
  const writes: unknown[] = [];
  for (const w of sh.writesInOrder()) {
    const t: number[] = [];
    for (let x = W.firstTarget[w]!; x >= 0; x = T.nextInWrite[x]!) {
      const extent = T.extent[x]!;
      t.push(E.pool[extent]!, E.lo[extent]!, T.epoch[x]!, T.orphanFree[x]!);
    }
    writes.push([W.id[w], str.id(W.room[w]!), nullable(W.chunk[w]!), W.poster[w], W.target[w], W.buf[w], W.postSeq[w], nullable(W.queue[w]!), t]);
  }
  const loads: unknown[] = [];
  for (const [id, list] of sh.loadExtents) {
    const refs: number[] = [];
    for (const x of list.extents) if (E.hcLoad[x] === id) refs.push(E.pool[x]!, E.lo[x]!);
    loads.push([id, list.rank, refs]);
  }
  return [sh.nextWriteId, extents, writes, loads];
}

/** The extent of `pool` that starts at page `lo`, which the snapshot must hold. */
function extentStarting(sh: ShadowMemory, pool: number, lo: number, what: string): number {
  const x = sh.extentAt(pool, lo);
  if (x < 0 || sh.extents.lo[x] !== lo) throw new Error(`snapshot: ${what} refers to pages from ${lo} of pool ${pool} that the snapshot lacks`);
  return x;
}

/** The shadow memory, and its writes' slots by id (rooms name their writes by id). */
function decodeShadow(a: unknown[], strs: string[]): { shadow: ShadowMemory; writeSlots: Map<number, number> } {
  const sh = new ShadowMemory();
  const E = sh.extents;
  const s = (i: number): string | null => (i < 0 ? null : strs[i]!);
  sh.nextWriteId = a[0] as number;
  for (const row of a[1] as unknown[][]) {
    const [pool, lo, hi, owner, epoch, allocSeq, freeSeq, prevFreeSeq, lwRoom, lwChunk, lwEpoch, lwPostSeq, lwLandSeq, lwOrphanFree, hcLoad, hcSeq, changedSeq] =
      row as number[];
    const x = sh.addExtent(pool!, lo!, hi!, changedSeq!);
    E.owner[x] = s(owner!);
    E.epoch[x] = epoch!;
    E.allocSeq[x] = allocSeq!;
    E.freeSeq[x] = freeSeq!;
    E.prevFreeSeq[x] = prevFreeSeq!;
    E.lwRoom[x] = s(lwRoom!);
    E.lwChunk[x] = orNaN(lwChunk as number | null);
    E.lwEpoch[x] = lwEpoch!;
    E.lwPostSeq[x] = lwPostSeq!;
    E.lwLandSeq[x] = lwLandSeq!;
    E.lwOrphanFree[x] = lwOrphanFree!;
    E.hcLoad[x] = hcLoad!;
    E.hcSeq[x] = hcSeq!;
    if (row[17] !== 0) E.layerStores[x] = new Map((row[17] as number[][]).map(([l, room, seq]) => [l!, [s(room!), seq!]]));
  }
  const writeSlots = new Map<number, number>();
  for (const row of a[2] as unknown[][]) {
    const [id, room, chunk, poster, target, buf, postSeq, queue, t] = row as [number, number, number | null, number, number, number, number, number | null, number[]];
    const w = sh.openWrite(id, s(room)!, chunk, poster, target, buf, postSeq, queue);
    for (let i = 0; i < t.length; i += 4) sh.addTarget(w, extentStarting(sh, t[i]!, t[i + 1]!, `write ${id}`), t[i + 2]!, t[i + 3]!);
    writeSlots.set(id, w);
  }
  for (const [id, rank, refs] of a[3] as [number, number, number[]][]) {
    const extents: number[] = [];
    for (let i = 0; i < refs.length; i += 2) extents.push(extentStarting(sh, refs[i]!, refs[i + 1]!, `HiCache load ${id}`));
    sh.loadExtents.set(id, { rank, extents });
  }
  return { shadow: sh, writeSlots };
}

export function encodeState(s: ModelState): unknown {
  const str = new Strings();
  const shadow = encodeShadow(s.shadow, str);
  return [
    VERSION,
    s.qualifyHosts ? 1 : 0,
    [s.lastSeq, s.lastTsUs, s.applied, s.nextLoadId, s.nextDeadlineUs === Infinity ? null : s.nextDeadlineUs, s.seen, s.configFlags, s.lastAbortSeq, s.lastAbortRoom],
    [...s.checked],
    s.ranks.encode(),
    encodeRooms(s.rooms, (w) => s.shadow.writes.id[w]!, s.profile),
    str.list,
    shadow,
    [...s.threads.values()].map((t) => t.encode()),
    [...s.hicache].map(([rank, c]) => [rank, c.encode()]),
    s.collectives.encode(),
    [...s.queues.values()].map((q) => [q.rank, q.queue, q.depth, q.changedSeq]),
    [...s.roleDtypes],
    [...s.auxHolders].map(([k, [room, seq]]) => [k, room, seq]),
    encodePages(s.pages),
  ];
}

export function decodeState(profile: Profile, snapshot: unknown, pageBytes: ReadonlyMap<string, Uint8Array>): ModelState {
  if (!Array.isArray(snapshot) || snapshot[0] !== VERSION) throw new Error("not a kvrewind model snapshot (or another version)");
  const a = snapshot as unknown[];
  const s = new ModelState(profile, a[1] === 1);
  const [lastSeq, lastTsUs, applied, nextLoadId, nextDeadline, seen, configFlags, lastAbortSeq, lastAbortRoom] = a[2] as (number | string | null)[];
  Object.assign(s, { lastSeq, lastTsUs, applied, nextLoadId, nextDeadlineUs: nextDeadline ?? Infinity, seen, configFlags, lastAbortSeq, lastAbortRoom: lastAbortRoom ?? null });
  s.checked = [...(a[3] as number[])];
  s.ranks = RankRegistry.decode(a[4] as unknown[], s.qualifyHosts);
  const { shadow, writeSlots } = decodeShadow(a[7] as unknown[], a[6] as string[]);
  s.shadow = shadow;
  s.rooms = decodeRooms(a[5] as unknown[], (id) => {
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
  decodePages(s.pages, a[14] as unknown[], pageBytes);
  return s;
}
