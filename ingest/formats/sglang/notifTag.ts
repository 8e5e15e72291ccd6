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

/** The KV chunk a tag covers, for the forms that carry one. */
export function chunkOfTag(tag: NotifTag): number | undefined {
  return "chunk" in tag ? tag.chunk : undefined;
}

/** The tag decoded, or null when it is none of the §6 forms. */
export function parseNotifTag(tag: string): NotifTag | null {
  const f = splitLimited(tag, 8);
  if (f.length < 2 || !isUint(f[0])) return null;
  const room = f[0];
  switch (f[1]) {
    case "kv":
      return kvTag(room, f);
    case "kvstate":
      return kvStateTag(room, f);
    case "stg":
      return stagedTag(room, f);
    case "state":
      return stateTag(room, f);
    case "aux":
      return auxTag(room, f);
    default:
      return null;
  }
}

function kvTag(room: string, f: string[]): NotifTag | null {
  if (f.length !== 4 && f.length !== 5 && f.length !== 8) return null;
  const chunk = uint(f[2]);
  const isLast = flag(f[3]);
  if (chunk < 0 || isLast === null) return null;
  if (f.length === 4) return { room, tagKind: "kv", chunk, isLast };
  const src = uint(f[4]);
  if (src < 0) return null;
  if (f.length === 5) return { room, tagKind: "kv", chunk, isLast, src };
  const part = uint(f[6]);
  const parts = uint(f[7]);
  if (f[5] !== "part" || part < 0 || parts < 0) return null;
  return { room, tagKind: "kv_part", chunk, isLast, src, part, parts };
}

/** Always the last chunk: the state travels with it. */
function kvStateTag(room: string, f: string[]): NotifTag | null {
  if (f.length !== 4) return null;
  const chunk = uint(f[2]);
  const src = uint(f[3]);
  if (chunk < 0 || src < 0) return null;
  return { room, tagKind: "kv_state", chunk, isLast: true, src };
}

function stagedTag(room: string, f: string[]): NotifTag | null {
  if (f.length !== 9 || f[8].length === 0) return null;
  const chunk = uint(f[2]);
  const isLast = flag(f[3]);
  const src = uint(f[4]);
  const chunkIdx = uint(f[5]);
  const pageStart = uint(f[6]);
  const numPages = uint(f[7]);
  if (chunk < 0 || isLast === null || src < 0 || chunkIdx < 0 || pageStart < 0 || numPages < 0) return null;
  return { room, tagKind: "staged", chunk, isLast, src, chunkIdx, pageStart, numPages, agentName: f[8] };
}

function stateTag(room: string, f: string[]): NotifTag | null {
  if (f.length !== 3 && f.length !== 4) return null;
  const src = uint(f[2]);
  if (src < 0) return null;
  if (f.length === 3) return { room, tagKind: "state", src };
  const component = uint(f[3]);
  return component < 0 ? null : { room, tagKind: "state", src, component };
}

function auxTag(room: string, f: string[]): NotifTag | null {
  if (f.length === 2) return { room, tagKind: "aux" };
  if (f[2] !== "nokv" || (f.length !== 4 && f.length !== 5)) return null;
  const src = uint(f[3]);
  if (src < 0) return null;
  if (f.length === 4) return { room, tagKind: "aux_nokv", src };
  const expectedChunks = uint(f[4]);
  return expectedChunks < 0 ? null : { room, tagKind: "aux_nokv", src, expectedChunks };
}

/** Python's `s.split("_", maxSplits)`: the last field keeps the rest. */
function splitLimited(s: string, maxSplits: number): string[] {
  const out: string[] = [];
  let from = 0;
  while (out.length < maxSplits) {
    const at = s.indexOf("_", from);
    if (at < 0) break;
    out.push(s.substring(from, at));
    from = at + 1;
  }
  out.push(s.substring(from));
  return out;
}

function isUint(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** A small non-negative integer field, or -1. */
function uint(s: string): number {
  return isUint(s) && s.length <= 15 ? Number(s) : -1;
}

function flag(s: string): boolean | null {
  if (s === "1") return true;
  if (s === "0") return false;
  return null;
}
