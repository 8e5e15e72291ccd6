// The decode-side TransferStatus with is_done() (docs/protocol.md
// §6 "TransferStatus"); notification tags are parsed in notif.ts.

import type { Notif } from "./notif.js";

/**
 * Appends to a list that is usually short: the first item makes a one-slot
 * array, where a push onto [] would reserve 17 (every receiver keeps a few of
 * these lists, and a replay makes hundreds of thousands of receivers).
 */
function append<T>(list: T[], item: T): T[] {
  if (list.length === 0) return [item];
  list.push(item);
  return list;
}

/**
 * Decode's per-room completion record. `requiredResponses` is
 * `required_prefill_response_num_table.get(room, 1)`; `expectsState` is set
 * by send_metadata when the room has state indices. Sources are few (one per
 * prefill rank answering), so per-source data sits in small parallel arrays:
 * `received_kvs_per_pp` is srcs[i] → chunks[i], `expected_kvs_per_pp` is
 * srcs[i] → expected[i] (-1 until known).
 */
export class TransferStatus {
  srcs: number[] = [];
  chunks: number[][] = [];
  expected: number[] = [];
  numExpected: number | null = null;
  receivedAux = false;
  /** `received_state_per_pp`. */
  stateSrcs: number[] = [];
  /** "src:chunk" → parts received, for mixed-memory chunks (rare: created on first use). */
  parts: Map<string, number> | null = null;

  constructor(
    public requiredResponses = 1,
    public expectsState = false,
  ) {}

  apply(n: Notif): void {
    switch (n.kind) {
      case "kv":
      case "stg": {
        if (n.parts !== null && n.parts > 1) {
          const key = `${n.src}:${n.chunk}`;
          this.parts ??= new Map();
          const got = (this.parts.get(key) ?? 0) + 1;
          this.parts.set(key, got);
          if (got < n.parts) return;
        }
        const i = this.source(n.src);
        if (!this.chunks[i]!.includes(n.chunk!)) this.chunks[i] = append(this.chunks[i]!, n.chunk!);
        if (n.isLast) {
          this.expected[i] = n.chunk! + 1;
          this.numExpected ??= this.requiredResponses;
        }
        return;
      }
      case "state":
        if (!this.stateSrcs.includes(n.src)) this.stateSrcs = append(this.stateSrcs, n.src);
        return;
      case "aux":
        this.receivedAux = true;
        this.numExpected ??= this.requiredResponses;
        return;
      case "aux_nokv": {
        // The last chunk had no pages: its count of earlier KV chunks is the
        // expectation. Tags before #32837 carry no count; [inference] then only
        // the chunks already received are expected.
        this.receivedAux = true;
        const i = this.source(n.src);
        this.expected[i] = n.chunk ?? this.chunks[i]!.length;
        this.numExpected ??= this.requiredResponses;
        return;
      }
    }
  }

  private source(src: number): number {
    let i = this.srcs.indexOf(src);
    if (i < 0) {
      i = this.srcs.length;
      this.srcs = append(this.srcs, src);
      this.chunks = append(this.chunks, []);
      this.expected = append(this.expected, -1);
    }
    return i;
  }

  private expectedSources(): number {
    let n = 0;
    for (const e of this.expected) if (e >= 0) n++;
    return n;
  }

  /** §6: every expected source complete, aux received, and state from every source when expected. */
  isDone(): boolean {
    const n = this.numExpected;
    if (n === null || !this.receivedAux) return false;
    if (this.expectsState && this.stateSrcs.length < n) return false;
    if (this.expectedSources() < n) return false;
    for (let i = 0; i < this.srcs.length; i++) {
      if (this.expected[i]! >= 0 && this.chunks[i]!.length !== this.expected[i]) return false;
    }
    return true;
  }

  /** What is still missing, for messages; empty when done. */
  missing(): string[] {
    const out: string[] = [];
    if (!this.receivedAux) out.push("aux");
    if (this.numExpected === null) out.push("last KV chunk");
    const n = this.numExpected ?? this.requiredResponses;
    if (this.expectsState && this.stateSrcs.length < n) out.push(`state (${this.stateSrcs.length}/${n} sources)`);
    const known = this.expectedSources();
    if (this.numExpected !== null && known < n) out.push(`last chunk from ${n - known} source(s)`);
    for (let i = 0; i < this.srcs.length; i++) {
      const e = this.expected[i]!;
      if (e >= 0 && this.chunks[i]!.length !== e) out.push(`KV chunks from source ${this.srcs[i]} (${this.chunks[i]!.length}/${e})`);
    }
    return out;
  }

  chunksReceived(): number {
    let n = 0;
    for (const c of this.chunks) n += c.length;
    return n;
  }

  encode(): unknown[] {
    return [
      this.requiredResponses,
      this.expectsState ? 1 : 0,
      this.numExpected,
      this.receivedAux ? 1 : 0,
      [...this.srcs],
      this.chunks.map((c) => [...c]),
      [...this.expected],
      [...this.stateSrcs],
      this.parts === null ? 0 : [...this.parts],
    ];
  }

  static decode(a: unknown[]): TransferStatus {
    const t = new TransferStatus(a[0] as number, a[1] === 1);
    t.numExpected = a[2] as number | null;
    t.receivedAux = a[3] === 1;
    t.srcs = [...(a[4] as number[])];
    t.chunks = (a[5] as number[][]).map((c) => [...c]);
    t.expected = [...(a[6] as number[])];
    t.stateSrcs = [...(a[7] as number[])];
    if (a[8] !== 0) t.parts = new Map(a[8] as [string, number][]);
    return t;
  }
}
