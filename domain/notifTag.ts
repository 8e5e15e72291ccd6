// NIXL notification tags (docs/protocol.md §6): ASCII, `_`-separated,
// parsed by decode with `split("_", 8)` (so a staged tag's agent name keeps its
// underscores). Forms and their history:
//   kv        {room}_kv_{chunk}_{is_last}                   before #15027 (2025-12-13)
//             {room}_kv_{chunk}_{is_last}_{src}             since; the last field was pp_rank until
//                                                           #22145, engine_rank until #32270, then
//                                                           src = pp_rank * tp_size + engine_rank
//   kv part   {room}_kv_{chunk}_{is_last}_{src}_part_{i}_{n}  mixed VRAM/DRAM destinations
//   staged    {room}_stg_{chunk}_{is_last}_{src}_{chunk_idx}_{page_start}_{num_pages}_{agent_name}
//   kv+state  {room}_kvstate_{chunk}_{src}        last chunk with the NSA/SWA state bundled in (prepped
//                                                 transfers; read in a nixl/conn.py copy of the index, version unknown)
//   state     {room}_state_{src}_{component_idx}  (`_{component_idx}` appended by maybe_send_extra)
//   aux       {room}_aux
//   aux_nokv  {room}_aux_nokv_{src} (#19746), {room}_aux_nokv_{src}_{expected} (#32837)
// `src` is kept under that name whatever the era; which rank it counts
// depends on the SGLang version of the run.

export type NotifTagKind = "kv" | "kv_part" | "kv_state" | "staged" | "state" | "aux" | "aux_nokv";

/** One decoded tag; which fields it has depends on its form (`tagKind`). */
export type NotifTag =
  /** `src` is absent in the four-field tags before #15027. */
  | { room: string; tagKind: "kv"; chunk: number; isLast: boolean; src?: number }
  /** This part's index and the number of parts. */
  | { room: string; tagKind: "kv_part"; chunk: number; isLast: boolean; src: number; part: number; parts: number }
  | { room: string; tagKind: "kv_state"; chunk: number; isLast: true; src: number }
  /** Chunk index in the staging ring, first staging page, page count, destination agent. */
  | {
      room: string;
      tagKind: "staged";
      chunk: number;
      isLast: boolean;
      src: number;
      chunkIdx: number;
      pageStart: number;
      numPages: number;
      agentName: string;
    }
  /** `component`: the state component index. */
  | { room: string; tagKind: "state"; src: number; component?: number }
  | { room: string; tagKind: "aux" }
  /** `expectedChunks`: KV chunks expected earlier from `src`. */
  | { room: string; tagKind: "aux_nokv"; src: number; expectedChunks?: number };

/** The tag decoded, or null when it is none of the §6 forms. */
export function parseNotifTag(tag: string): NotifTag | null {
  const f = FIELDS.split(tag);
  if (f.count < 2 || !f.digits(0)) return null;
  const room = f.text(0);
  if (f.is(1, "kv")) return kvTag(room, f);
  if (f.is(1, "kvstate")) return kvStateTag(room, f);
  if (f.is(1, "stg")) return stagedTag(room, f);
  if (f.is(1, "state")) return stateTag(room, f);
  if (f.is(1, "aux")) return auxTag(room, f);
  return null;
}

function kvTag(room: string, f: TagFields): NotifTag | null {
  if (f.count !== 4 && f.count !== 5 && f.count !== 8) return null;
  const chunk = f.uint(2);
  const isLast = f.flag(3);
  if (chunk < 0 || isLast === null) return null;
  if (f.count === 4) return { room, tagKind: "kv", chunk, isLast };
  const src = f.uint(4);
  if (src < 0) return null;
  if (f.count === 5) return { room, tagKind: "kv", chunk, isLast, src };
  const part = f.uint(6);
  const parts = f.uint(7);
  if (!f.is(5, "part") || part < 0 || parts < 0) return null;
  return { room, tagKind: "kv_part", chunk, isLast, src, part, parts };
}

/** Always the last chunk: the state travels with it. */
function kvStateTag(room: string, f: TagFields): NotifTag | null {
  if (f.count !== 4) return null;
  const chunk = f.uint(2);
  const src = f.uint(3);
  if (chunk < 0 || src < 0) return null;
  return { room, tagKind: "kv_state", chunk, isLast: true, src };
}

function stagedTag(room: string, f: TagFields): NotifTag | null {
  if (f.count !== 9 || f.empty(8)) return null;
  const chunk = f.uint(2);
  const isLast = f.flag(3);
  const src = f.uint(4);
  const chunkIdx = f.uint(5);
  const pageStart = f.uint(6);
  const numPages = f.uint(7);
  if (chunk < 0 || isLast === null || src < 0 || chunkIdx < 0 || pageStart < 0 || numPages < 0) return null;
  return { room, tagKind: "staged", chunk, isLast, src, chunkIdx, pageStart, numPages, agentName: f.text(8) };
}

function stateTag(room: string, f: TagFields): NotifTag | null {
  if (f.count !== 3 && f.count !== 4) return null;
  const src = f.uint(2);
  if (src < 0) return null;
  if (f.count === 3) return { room, tagKind: "state", src };
  const component = f.uint(3);
  return component < 0 ? null : { room, tagKind: "state", src, component };
}

function auxTag(room: string, f: TagFields): NotifTag | null {
  if (f.count === 2) return { room, tagKind: "aux" };
  if (!f.is(2, "nokv") || (f.count !== 4 && f.count !== 5)) return null;
  const src = f.uint(3);
  if (src < 0) return null;
  if (f.count === 4) return { room, tagKind: "aux_nokv", src };
  const expectedChunks = f.uint(4);
  return expectedChunks < 0 ? null : { room, tagKind: "aux_nokv", src, expectedChunks };
}

/** Decode's `split("_", 8)`: at most nine fields, the last keeping the rest. */
const MAX_SPLITS = 8;

/**
 * Python's `tag.split("_", 8)` as the fields' bounds in the tag rather than
 * strings: most fields are read as numbers, and a replay parses a tag per
 * notification (an array and a string per field were most of that time).
 */
class TagFields {
  count = 0;
  private tag = "";
  private readonly starts = new Int32Array(MAX_SPLITS + 1);
  private readonly ends = new Int32Array(MAX_SPLITS + 1);

  split(tag: string): this {
    this.tag = tag;
    let n = 0;
    let from = 0;
    while (n < MAX_SPLITS) {
      const at = tag.indexOf("_", from);
      if (at < 0) break;
      this.starts[n] = from;
      this.ends[n++] = at;
      from = at + 1;
    }
    this.starts[n] = from;
    this.ends[n] = tag.length;
    this.count = n + 1;
    return this;
  }

  text(k: number): string {
    return this.tag.substring(this.starts[k]!, this.ends[k]!);
  }

  is(k: number, word: string): boolean {
    return this.ends[k]! - this.starts[k]! === word.length && this.tag.startsWith(word, this.starts[k]!);
  }

  empty(k: number): boolean {
    return this.ends[k] === this.starts[k];
  }

  /** Field k is one or more decimal digits. */
  digits(k: number): boolean {
    const end = this.ends[k]!;
    if (end === this.starts[k]) return false;
    for (let i = this.starts[k]!; i < end; i++) {
      const c = this.tag.charCodeAt(i);
      if (c < 48 || c > 57) return false;
    }
    return true;
  }

  /** Field k as a small non-negative integer (at most 15 digits, exact), or -1. */
  uint(k: number): number {
    const start = this.starts[k]!;
    const end = this.ends[k]!;
    if (end === start || end - start > 15) return -1;
    let v = 0;
    for (let i = start; i < end; i++) {
      const c = this.tag.charCodeAt(i);
      if (c < 48 || c > 57) return -1;
      v = v * 10 + (c - 48);
    }
    return v;
  }

  flag(k: number): boolean | null {
    if (this.ends[k]! - this.starts[k]! !== 1) return null;
    const c = this.tag.charCodeAt(this.starts[k]!);
    return c === 49 ? true : c === 48 ? false : null;
  }
}

/** One set of bounds for every parse: parsing is synchronous and keeps none of them. */
const FIELDS = new TagFields();
