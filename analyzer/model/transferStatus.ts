// NIXL notification tags and the decode-side TransferStatus with is_done()
// (sglang-pd-logs-and-protocol.md §6 "Notification tags", "TransferStatus").

export type NotifKind = "kv" | "stg" | "state" | "aux" | "aux_nokv";

export interface Notif {
  room: string;
  kind: NotifKind;
  /** kv/stg: the chunk id; aux_nokv: the number of earlier KV chunks expected from src (null before #32837). */
  chunk: number | null;
  isLast: boolean;
  /** transfer_source_rank (pp_rank * tp_size + engine_rank); 0 for kv tags older than #15027 that carry none. */
  src: number;
  /** Mixed VRAM/DRAM destinations: part i of n. */
  part: number | null;
  parts: number | null;
}

const ROOM = /^\d+$/;

function int(s: string | undefined): number | null {
  if (s === undefined || !/^\d+$/.test(s)) return null;
  return Number(s);
}

/**
 * Decodes a notif payload the way decode does (`split("_", 8)`); returns null
 * for anything that is not one of the tag shapes of §6.
 */
export function parseNotif(tag: string): Notif | null {
  const f = tag.split("_");
  const room = f[0]!;
  if (!ROOM.test(room) || f.length < 2) return null;
  const base: Notif = { room, kind: "aux", chunk: null, isLast: false, src: 0, part: null, parts: null };
  switch (f[1]) {
    case "kv":
    case "stg": {
      const chunk = int(f[2]);
      const last = f[3];
      if (chunk === null || (last !== "0" && last !== "1")) return null;
      const src = f.length > 4 ? int(f[4]) : 0;
      if (src === null) return null;
      const out: Notif = { ...base, kind: f[1], chunk, isLast: last === "1", src };
      if (f[1] === "kv" && f[5] === "part") {
        out.part = int(f[6]);
        out.parts = int(f[7]);
        if (out.part === null || out.parts === null) return null;
      }
      return out;
    }
    case "state": {
      const src = int(f[2]);
      return src === null ? null : { ...base, kind: "state", src, isLast: true };
    }
    case "aux": {
      if (f.length === 2) return { ...base, isLast: true };
      if (f[2] !== "nokv") return null;
      const src = int(f[3]);
      if (src === null) return null;
      return { ...base, kind: "aux_nokv", src, chunk: f.length > 4 ? int(f[4]) : null, isLast: true };
    }
    default:
      return null;
  }
}

/** The payload the sender attaches for each kind (current v0.5.18 shapes). */
export function formatNotif(n: Pick<Notif, "room" | "kind" | "chunk" | "isLast" | "src">): string {
  switch (n.kind) {
    case "kv":
    case "stg":
      return `${n.room}_${n.kind}_${n.chunk ?? 0}_${n.isLast ? 1 : 0}_${n.src}`;
    case "state":
      return `${n.room}_state_${n.src}`;
    case "aux":
      return `${n.room}_aux`;
    case "aux_nokv":
      return `${n.room}_aux_nokv_${n.src}_${n.chunk ?? 0}`;
  }
}

/**
 * Decode's per-room completion record. `requiredResponses` is
 * `required_prefill_response_num_table.get(room, 1)`; `expectsState` is set
 * by send_metadata when the room has state indices.
 */
export class TransferStatus {
  receivedKvs = new Map<number, Set<number>>();
  expectedKvs = new Map<number, number>();
  numExpected: number | null = null;
  receivedAux = false;
  receivedState = new Set<number>();
  /** "src:chunk" → parts received, for mixed-memory chunks. */
  receivedParts = new Map<string, number>();

  constructor(
    public requiredResponses = 1,
    public expectsState = false,
  ) {}

  apply(n: Notif): void {
    switch (n.kind) {
      case "kv":
      case "stg":
        if (n.parts !== null && n.parts > 1) {
          const key = `${n.src}:${n.chunk}`;
          const got = (this.receivedParts.get(key) ?? 0) + 1;
          this.receivedParts.set(key, got);
          if (got < n.parts) return;
        }
        this.kvReceived(n.src, n.chunk!);
        if (n.isLast) {
          this.expectedKvs.set(n.src, n.chunk! + 1);
          this.numExpected ??= this.requiredResponses;
        }
        return;
      case "state":
        this.receivedState.add(n.src);
        return;
      case "aux":
        this.receivedAux = true;
        this.numExpected ??= this.requiredResponses;
        return;
      case "aux_nokv":
        // The last chunk had no pages: its count of earlier KV chunks is the
        // expectation. Tags before #32837 carry no count; [inference] then only
        // the chunks already received are expected.
        this.receivedAux = true;
        this.expectedKvs.set(n.src, n.chunk ?? this.receivedKvs.get(n.src)?.size ?? 0);
        this.numExpected ??= this.requiredResponses;
        return;
    }
  }

  private kvReceived(src: number, chunk: number): void {
    let set = this.receivedKvs.get(src);
    if (set === undefined) this.receivedKvs.set(src, (set = new Set()));
    set.add(chunk);
  }

  /** §6: every expected source complete, aux received, and state from every source when expected. */
  isDone(): boolean {
    const n = this.numExpected;
    if (n === null || !this.receivedAux) return false;
    if (this.expectsState && this.receivedState.size < n) return false;
    if (this.expectedKvs.size < n) return false;
    for (const [src, expected] of this.expectedKvs) {
      if ((this.receivedKvs.get(src)?.size ?? 0) !== expected) return false;
    }
    return true;
  }

  /** What is still missing, for messages; empty when done. */
  missing(): string[] {
    const out: string[] = [];
    if (!this.receivedAux) out.push("aux");
    if (this.numExpected === null) out.push("last KV chunk");
    const n = this.numExpected ?? this.requiredResponses;
    if (this.expectsState && this.receivedState.size < n) out.push(`state (${this.receivedState.size}/${n} sources)`);
    if (this.numExpected !== null && this.expectedKvs.size < n) out.push(`last chunk from ${n - this.expectedKvs.size} source(s)`);
    for (const [src, expected] of this.expectedKvs) {
      const got = this.receivedKvs.get(src)?.size ?? 0;
      if (got !== expected) out.push(`KV chunks from source ${src} (${got}/${expected})`);
    }
    return out;
  }

  chunksReceived(): number {
    let n = 0;
    for (const s of this.receivedKvs.values()) n += s.size;
    return n;
  }

  encode(): unknown[] {
    return [
      this.requiredResponses,
      this.expectsState ? 1 : 0,
      this.numExpected,
      this.receivedAux ? 1 : 0,
      [...this.receivedKvs].map(([src, set]) => [src, [...set]]),
      [...this.expectedKvs],
      [...this.receivedState],
      [...this.receivedParts],
    ];
  }

  static decode(a: unknown[]): TransferStatus {
    const t = new TransferStatus(a[0] as number, a[1] === 1);
    t.numExpected = a[2] as number | null;
    t.receivedAux = a[3] === 1;
    for (const [src, chunks] of a[4] as [number, number[]][]) t.receivedKvs.set(src, new Set(chunks));
    for (const [src, n] of a[5] as [number, number][]) t.expectedKvs.set(src, n);
    for (const src of a[6] as number[]) t.receivedState.add(src);
    for (const [k, n] of a[7] as [string, number][]) t.receivedParts.set(k, n);
    return t;
  }
}
