// HiCache layer-wise load-back, Generation B (event-based, commit 350cb879):
// LayerLoadingEvent per load, LayerDoneCounter with 3 producer slots, and
// which device-pool accessors wait (docs/hicache-indexk.md §1.2, §1.3).

import type { Profile } from "./api.js";

/** `LayerDoneCounter.num_counters`. */
export const PRODUCER_SLOTS = 3;

/** One `start_loading()`: host→device copies per layer on load_stream, each followed by `complete(i)`. */
export class LayerLoad {
  /** Layers 0..layersDone-1 have completed (layer events are recorded in order on one stream). */
  layersDone = 0;
  /** The highest layer a consumer waited on (GPU-side wait_event on its current stream). */
  waitedMax = -1;
  lastLayerSeq: number | null = null;
  lastWaitSeq: number | null = null;

  constructor(
    readonly id: number,
    readonly slot: number,
    readonly layers: number,
    readonly startSeq: number,
  ) {}

  /** `complete(i)`. */
  completeLayer(layer: number, seq: number): void {
    if (layer + 1 > this.layersDone) this.layersDone = layer + 1;
    this.lastLayerSeq = seq;
  }

  layerLoaded(layer: number): boolean {
    return layer < this.layersDone;
  }

  finished(): boolean {
    return this.layersDone >= this.layers;
  }

  encode(): unknown[] {
    return [this.id, this.slot, this.layers, this.startSeq, this.layersDone, this.waitedMax, this.lastLayerSeq, this.lastWaitSeq];
  }

  static decode(a: unknown[]): LayerLoad {
    const l = new LayerLoad(a[0] as number, a[1] as number, a[2] as number, a[3] as number);
    l.layersDone = a[4] as number;
    l.waitedMax = a[5] as number;
    l.lastLayerSeq = a[6] as number | null;
    l.lastWaitSeq = a[7] as number | null;
    return l;
  }
}

export interface WaitResult {
  /** False: `wait_until` returned at once because the consumer index is -1 (§1.2). */
  ordered: boolean;
  load: LayerLoad | null;
}

/** One rank's `LayerDoneCounter`: 3 ring slots, a producer and a consumer index. */
export class LayerDoneCounter {
  readonly slots: (LayerLoad | null)[] = new Array(PRODUCER_SLOTS).fill(null);
  producerIndex = -1;
  consumerIndex = -1;
  changedSeq = 0;

  /**
   * `update_producer()` then the load: the slot advances round-robin unless
   * the probe names it. Reusing a slot whose load has not finished is what
   * the assertion "Producer finish event should be ready before being reused."
   * forbids; the caller learns of it through `reusedUnfinished`.
   */
  startLoad(id: number, layers: number, seq: number, slot?: number): { load: LayerLoad; reusedUnfinished: LayerLoad | null } {
    const s = slot ?? (this.producerIndex + 1) % PRODUCER_SLOTS;
    this.producerIndex = s;
    const old = this.slots[s] ?? null;
    const load = new LayerLoad(id, s, layers, seq);
    this.slots[s] = load;
    this.changedSeq = seq;
    return { load, reusedUnfinished: old !== null && !old.finished() ? old : null };
  }

  /** `set_consumer(idx)`: -1 for batches that triggered no load. */
  setConsumer(idx: number, seq: number): void {
    if (idx !== this.consumerIndex) this.changedSeq = seq;
    this.consumerIndex = idx;
  }

  /** `wait_until(layer)`: a no-op when the consumer index is -1, else a GPU wait on the slot's layer event. */
  waitUntil(layer: number, seq: number): WaitResult {
    if (this.consumerIndex < 0) return { ordered: false, load: null };
    const load = this.slots[this.consumerIndex % PRODUCER_SLOTS] ?? null;
    if (load !== null && layer > load.waitedMax) {
      load.waitedMax = layer;
      load.lastWaitSeq = seq;
    }
    return { ordered: load !== null, load };
  }

  /** Whether some slot's load has layers still to complete. */
  loading(): boolean {
    for (const l of this.slots) if (l !== null && !l.finished()) return true;
    return false;
  }

  /** The live load with this id, or null once its slot was reused (a reused slot's load had finished). */
  loadById(id: number): LayerLoad | null {
    for (const l of this.slots) if (l !== null && l.id === id) return l;
    return null;
  }

  encode(): unknown[] {
    return [this.producerIndex, this.consumerIndex, this.changedSeq, this.slots.map((l) => (l === null ? null : l.encode()))];
  }

  static decode(a: unknown[]): LayerDoneCounter {
    const c = new LayerDoneCounter();
    c.producerIndex = a[0] as number;
    c.consumerIndex = a[1] as number;
    c.changedSeq = a[2] as number;
    (a[3] as (unknown[] | null)[]).forEach((l, i) => (c.slots[i] = l === null ? null : LayerLoad.decode(l)));
    return c;
  }
}

/** Device-pool accessors of §1.3. */
export type Accessor =
  | "get_key_buffer"
  | "get_value_buffer"
  | "get_kv_buffer"
  | "get_index_k_with_scale_buffer"
  | "get_index_k_scale_buffer"
  | "get_index_k_continuous"
  | "get_index_k_scale_continuous";

const MAIN_KV: ReadonlySet<string> = new Set(["get_key_buffer", "get_value_buffer", "get_kv_buffer"]);
/** The ragged/prefill index-K getters #22811 gated. */
export const RAGGED_INDEX_K: ReadonlySet<string> = new Set([
  "get_index_k_scale_buffer",
  "get_index_k_continuous",
  "get_index_k_scale_continuous",
]);

/**
 * Whether an accessor calls `wait_until(layer_id - start_layer)` in the
 * profile's version (§1.3): main KV always; the paged
 * `get_index_k_with_scale_buffer` always; the ragged index-K getters only
 * after #22811. Null for an accessor the table does not name.
 */
export function accessorWaits(accessor: string, profile: Pick<Profile, "indexKRaggedAccessorsWait">): boolean | null {
  if (MAIN_KV.has(accessor) || accessor === "get_index_k_with_scale_buffer") return true;
  if (RAGGED_INDEX_K.has(accessor)) return profile.indexKRaggedAccessorsWait;
  return null;
}
