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
import { PageRec, ShadowMemory, Write, type Target } from "./shadowMemory.js";
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
  const pages: unknown[] = [];
  for (const p of sh.all()) {
    pages.push([
      p.pool, p.page, str.id(p.owner), p.epoch, p.allocSeq, p.freeSeq, p.prevFreeSeq, str.id(p.lwRoom), p.lwChunk, p.lwEpoch,
      p.lwPostSeq, p.lwLandSeq, p.lwOrphanFree, p.hcLoad, p.hcSeq, p.changedSeq,
      p.layerStores === null ? 0 : [...p.layerStores].map(([l, [room, seq]]) => [l, str.id(room), seq]),
    ]);
  }
  const writes: unknown[] = [];
  for (const w of sh.writes.values()) {
    const t: number[] = [];
    for (const x of w.targets) t.push(x.page.pool, x.page.page, x.epoch, x.orphanFree);
    writes.push([w.id, str.id(w.room), w.chunk, w.poster, w.target, w.buf, w.postSeq, w.queue, t]);
  }
  const loads: unknown[] = [];
  for (const [id, list] of sh.loadPages) {
    const refs: number[] = [];
    for (const p of list) if (p.hcLoad === id) refs.push(p.pool, p.page);
    loads.push([id, refs]);
  }
  return [sh.nextWriteId, pages, writes, loads];
}

function decodeShadow(a: unknown[], strs: string[]): ShadowMemory {
  const sh = new ShadowMemory();
  const s = (i: number): string | null => (i < 0 ? null : strs[i]!);
  sh.nextWriteId = a[0] as number;
  for (const row of a[1] as unknown[][]) {
    const p = new PageRec(row[0] as number, row[1] as number, row[15] as number);
    p.owner = s(row[2] as number);
    [, , , p.epoch, p.allocSeq, p.freeSeq, p.prevFreeSeq] = row as number[];
    p.lwRoom = s(row[7] as number);
    p.lwChunk = row[8] as number | null;
    [, , , , , , , , , p.lwEpoch, p.lwPostSeq, p.lwLandSeq, p.lwOrphanFree, p.hcLoad, p.hcSeq] = row as number[];
    if (row[16] !== 0) p.layerStores = new Map((row[16] as number[][]).map(([l, room, seq]) => [l!, [s(room!), seq!]]));
    sh.pool(p.pool)[p.page] = p;
  }
  for (const row of a[2] as unknown[][]) {
    const [id, room, chunk, poster, target, buf, postSeq, queue, t] = row as [number, number, number | null, number, number, number, number, number | null, number[]];
    const w = new Write(id, s(room)!, chunk, poster, target, buf, postSeq, queue);
    for (let i = 0; i < t.length; i += 4) {
      const page = sh.pools[t[i]!]?.[t[i + 1]!];
      if (page === undefined) throw new Error(`snapshot: write ${id} targets page ${t[i + 1]} of pool ${t[i]} that the snapshot lacks`);
      const x: Target = { write: w, page, epoch: t[i + 2]!, orphanFree: t[i + 3]! };
      w.targets.push(x);
      (page.inflight ??= []).push(x);
    }
    sh.writes.set(id, w);
  }
  for (const [id, refs] of a[3] as [number, number[]][]) {
    const list: PageRec[] = [];
    for (let i = 0; i < refs.length; i += 2) list.push(sh.pools[refs[i]!]![refs[i + 1]!]!);
    sh.loadPages.set(id, list);
  }
  return sh;
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
    s.rooms.encode((w) => w.id),
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
  s.shadow = decodeShadow(a[7] as unknown[], a[6] as string[]);
  s.rooms = RoomRegistry.decode(a[5] as unknown[], (id) => {
    const w = s.shadow.writes.get(id);
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
