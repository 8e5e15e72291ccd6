// NIXL notification tags (docs/protocol.md §6 "Notification
// tags"): `_`-separated fields, room first. Decoded once per kv.notify and
// xfer.notif_sent event, so the parser scans the tag in place rather than
// splitting it: it allocates the result and nothing else.

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

/** No rule below reads past field 7; the count saturates above it. */
const MAX_FIELDS = 9;

/** The fields of one tag as [start, end) offsets (module state: parsing is synchronous and not re-entrant). */
class TagFields {
  tag = "";
  count = 0;
  private readonly starts = new Int32Array(MAX_FIELDS);
  private readonly ends = new Int32Array(MAX_FIELDS);

  /** Splits `tag`; `from` may skip a prefix known to hold no separator (the room). */
  scan(tag: string, from = 0): void {
    this.tag = tag;
    let n = 0;
    let start = 0;
    for (let i = from; i < tag.length && n < MAX_FIELDS - 1; i++) {
      if (tag.charCodeAt(i) !== 95 /* _ */) continue;
      this.starts[n] = start;
      this.ends[n++] = i;
      start = i + 1;
    }
    this.starts[n] = start;
    this.ends[n++] = tag.length;
    this.count = n;
  }

  is(i: number, word: string): boolean {
    return i < this.count && this.ends[i]! - this.starts[i]! === word.length && this.tag.startsWith(word, this.starts[i]!);
  }

  /** Whether the field is present, non-empty and all digits. */
  digits(i: number): boolean {
    if (i >= this.count || this.ends[i] === this.starts[i]) return false;
    for (let k = this.starts[i]!; k < this.ends[i]!; k++) {
      const c = this.tag.charCodeAt(k);
      if (c < 48 || c > 57) return false;
    }
    return true;
  }

  /** The field as a non-negative integer; null when absent, empty or not all digits (as `int(f[i])` of §6 would fail). */
  int(i: number): number | null {
    if (!this.digits(i)) return null;
    const start = this.starts[i]!;
    const end = this.ends[i]!;
    // Past 15 digits a running sum may round differently from Number().
    if (end - start > 15) return Number(this.tag.slice(start, end));
    let v = 0;
    for (let k = start; k < end; k++) v = v * 10 + this.tag.charCodeAt(k) - 48;
    return v;
  }

  /** Field 0 as a string. */
  room(): string {
    return this.tag.slice(0, this.ends[0]!);
  }
}

const fields = new TagFields();

/** The last event room found to be all digits (events of one room come in runs). */
let digitRoom = "";

/** Whether `tag` starts with `room` then "_" and `room` is a decimal room: the tag's room is that string. */
function opensWithRoom(tag: string, room: string | null): room is string {
  if (room === null || room.length === 0 || tag.length <= room.length || tag.charCodeAt(room.length) !== 95 || !tag.startsWith(room)) return false;
  if (room === digitRoom) return true;
  for (let k = 0; k < room.length; k++) {
    const c = room.charCodeAt(k);
    if (c < 48 || c > 57) return false;
  }
  digitRoom = room;
  return true;
}

function notif(room: string, kind: NotifKind, chunk: number | null, isLast: boolean, src: number): Notif {
  return { room, kind, chunk, isLast, src, part: null, parts: null };
}

/**
 * Decodes a notif payload the way decode does (`split("_", 8)`); returns null
 * for anything that is not one of the tag shapes of §6. `knownRoom` (the
 * event's room) is returned as the room when the tag names the same one.
 */
export function parseNotif(tag: string, knownRoom: string | null = null): Notif | null {
  const f = fields;
  const known = opensWithRoom(tag, knownRoom) ? knownRoom : null;
  f.scan(tag, known === null ? 0 : known.length);
  if (f.count < 2 || (known === null && !f.digits(0))) return null;
  const room = known ?? f.room();
  if (f.is(1, "kv") || f.is(1, "stg")) {
    const kind = f.is(1, "kv") ? "kv" : "stg";
    const chunk = f.int(2);
    const last = f.is(3, "1");
    if (chunk === null || (!last && !f.is(3, "0"))) return null;
    const src = f.count > 4 ? f.int(4) : 0;
    if (src === null) return null;
    const out = notif(room, kind, chunk, last, src);
    if (kind === "kv" && f.is(5, "part")) {
      out.part = f.int(6);
      out.parts = f.int(7);
      if (out.part === null || out.parts === null) return null;
    }
    return out;
  }
  if (f.is(1, "state")) {
    const src = f.int(2);
    return src === null ? null : notif(room, "state", null, true, src);
  }
  if (f.is(1, "aux")) {
    if (f.count === 2) return notif(room, "aux", null, true, 0);
    if (!f.is(2, "nokv")) return null;
    const src = f.int(3);
    if (src === null) return null;
    return notif(room, "aux_nokv", f.count > 4 ? f.int(4) : null, true, src);
  }
  return null;
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
