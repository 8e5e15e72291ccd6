// A synthetic PD incident for benchmarks: 8 prefill + 8 decode ranks, rooms
// flowing through alloc/meta/got_info/post/done/notify/poll/free, per-iteration
// scheduler iterations, collectives and index-K reads, HiCache loads, and the
// log lines the model skips. Healthy: the model should find nothing in it.

import type { StoredEvent } from "../store/read/events.js";

export const RANKS = 8;
const LIVE_ROOMS = 64;
const PAGES_PER_ROOM = 8;

/**
 * A new room every `roomEvery` decode iterations (each room lives
 * 64 × roomEvery iterations). 1 stresses the room lifecycle (~half the events
 * are transfer events); 8 is closer to a serving trace, where per-iteration
 * probes (collectives, index-K reads) outnumber per-request ones.
 */
export interface SyntheticShape {
  roomEvery: number;
}

/** Yields the incident in batches, as the replay streams rows from the store (the whole incident is never in memory). */
export function* synthesize(target: number, shape: SyntheticShape = { roomEvery: 1 }, batch = 50_000): Generator<StoredEvent[]> {
  let out: StoredEvent[] = [];
  let total = 0;
  let seq = 0;
  let ts = 1_764_421_512_000_000;
  const add = (kind: string, role: "prefill" | "decode", tp: number, f: Partial<StoredEvent> = {}): void => {
    out.push({
      seq: ++seq, tsUs: (ts += 100), tsInferred: false, sourceId: 1 + (role === "prefill" ? 0 : RANKS) + tp, line: seq, host: role === "prefill" ? "p0" : "d0",
      role, dp: 0, pp: 0, tp, kind, room: null, rid: null, chunk: null, layer: null, pageLo: null, pageHi: null, state: null,
      attrs: null, text: "", ...f,
    });
  };
  let roomId = 6_000_000_000_000_000_000n;
  const live: { room: string; page: number; age: number }[] = [];
  let nextPage = 0;
  let iter = 0;
  let collSeq = 0;
  while (total < target) {
    if (out.length >= batch) {
      total += out.length;
      yield out;
      out = [];
    }
    iter++;
    if (live.length < LIVE_ROOMS && iter % shape.roomEvery === 0) {
      const room = String(roomId++);
      const page = nextPage;
      nextPage = (nextPage + PAGES_PER_ROOM) % 60_000;
      const pages = [[page, page + PAGES_PER_ROOM]];
      for (let tp = 0; tp < RANKS; tp++) {
        add("kv.alloc", "decode", tp, { room, attrs: { pages } });
        add("kv.meta", "decode", tp, { room, attrs: { pages, aux_index: page % 4096 } });
        add("boot.got_info", "prefill", tp, { room, attrs: { required_dst_info_num: 1 } });
        add("kv.post", "prefill", tp, { room, chunk: 0, attrs: { pages: [[page + 1000, page + 1004]], last: false, queue: tp % 4 } });
        add("kv.post", "prefill", tp, { room, chunk: 1, attrs: { pages: [[page + 1004, page + 1008]], last: true, queue: tp % 4 } });
      }
      live.push({ room, page, age: 0 });
    }
    for (const r of live) {
      r.age++;
      if (r.age !== 2) continue;
      for (let tp = 0; tp < RANKS; tp++) {
        add("kv.done", "prefill", tp, { room: r.room, chunk: 0 });
        add("kv.done", "prefill", tp, { room: r.room, chunk: 1 });
        add("kv.notify", "decode", tp, { room: r.room, attrs: { tag: `${r.room}_kv_0_0_${tp}` } });
        add("kv.notify", "decode", tp, { room: r.room, attrs: { tag: `${r.room}_kv_1_1_${tp}` } });
        add("kv.notify", "decode", tp, { room: r.room, attrs: { tag: `${r.room}_aux` } });
        add("kv.poll", "decode", tp, { room: r.room, attrs: { local: 4, reduced: 4 } });
      }
    }
    for (let tp = 0; tp < RANKS; tp++) {
      add("sched.iter", "decode", tp, { attrs: { iter, branch: "run_batch" } });
      add("coll.enter", "decode", tp, { attrs: { group: "tp_cpu_group", op: "broadcast", seq: collSeq, site: "recv_requests" } });
      add("coll.exit", "decode", tp, { attrs: { group: "tp_cpu_group", op: "broadcast", seq: collSeq } });
      for (let k = 0; k < 8 && live.length > 0; k++) {
        const r = live[(iter + k) % live.length]!;
        if (r.age <= 2) continue;
        add("kernel.read", "decode", tp, { room: r.room, layer: iter % 61, attrs: { buffer: "index_k", pages: [[r.page, r.page + PAGES_PER_ROOM]], consumer: -1, accessor: "get_index_k_with_scale_buffer" } });
      }
      add("log.unparsed", "decode", tp, { text: "some line" });
      if (iter % 40 === 0) add("batch.decode", "decode", tp, { text: "Decode batch, #running-req: 64" });
    }
    if (iter % 50 === 0) {
      add("hicache.load", "prefill", 0, { attrs: { slot: (iter / 50) % 3, layers: 61, pages: [[50_000, 50_004]] } });
      for (let l = 0; l < 61; l++) add("hicache.layer", "prefill", 0, { layer: l, attrs: { slot: (iter / 50) % 3 } });
    }
    collSeq++;
    for (let i = live.length - 1; i >= 0; i--) {
      const r = live[i]!;
      if (r.age < LIVE_ROOMS * shape.roomEvery) continue;
      for (let tp = 0; tp < RANKS; tp++) add("kv.free", "decode", tp, { room: r.room, attrs: { pages: [[r.page, r.page + PAGES_PER_ROOM]] } });
      live.splice(i, 1);
    }
  }
}

