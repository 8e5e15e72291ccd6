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

function digits(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

function int(s: string | undefined): number | null {
  return s === undefined || !digits(s) ? null : Number(s);
}

function notif(room: string, kind: NotifKind, chunk: number | null, isLast: boolean, src: number): Notif {
  return { room, kind, chunk, isLast, src, part: null, parts: null };
}

/**
 * Decodes a notif payload the way decode does (`split("_", 8)`); returns null
 * for anything that is not one of the tag shapes of §6.
 */
export function parseNotif(tag: string): Notif | null {
  const f = tag.split("_");
  const room = f[0]!;
  if (!digits(room) || f.length < 2) return null;
  switch (f[1]) {
    case "kv":
    case "stg": {
      const chunk = int(f[2]);
      const last = f[3];
      if (chunk === null || (last !== "0" && last !== "1")) return null;
      const src = f.length > 4 ? int(f[4]) : 0;
      if (src === null) return null;
      const out = notif(room, f[1], chunk, last === "1", src);
      if (f[1] === "kv" && f[5] === "part") {
        out.part = int(f[6]);
        out.parts = int(f[7]);
        if (out.part === null || out.parts === null) return null;
      }
      return out;
    }
    case "state": {
      const src = int(f[2]);
      return src === null ? null : notif(room, "state", null, true, src);
    }
    case "aux": {
      if (f.length === 2) return notif(room, "aux", null, true, 0);
      if (f[2] !== "nokv") return null;
      const src = int(f[3]);
      if (src === null) return null;
      return notif(room, "aux_nokv", f.length > 4 ? int(f[4]) : null, true, src);
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
        if (!this.chunks[i]!.includes(n.chunk!)) this.chunks[i]!.push(n.chunk!);
        if (n.isLast) {
          this.expected[i] = n.chunk! + 1;
          this.numExpected ??= this.requiredResponses;
        }
        return;
      }
      case "state":
        if (!this.stateSrcs.includes(n.src)) this.stateSrcs.push(n.src);
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
      this.srcs.push(src);
      this.chunks.push([]);
      this.expected.push(-1);
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
