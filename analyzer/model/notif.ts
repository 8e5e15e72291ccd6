// NIXL notification tags as the model reads them (docs/protocol.md §6
// "Notification tags"). The ingest decodes each tag into fields where the
// format lives (domain/notifTag.ts, ingest/formats/notifFields.ts); this file
// only says which of those fields the model's TransferStatus uses.

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

/** A decoded tag's fields, as an event carries them (domain/notifTag.ts NotifTag, which has this shape too). */
export interface NotifFields {
  room?: string;
  /** domain/notifTag.ts NotifTagKind. */
  tagKind?: string;
  chunk?: number;
  isLast?: boolean;
  src?: number;
  part?: number;
  parts?: number;
  expectedChunks?: number;
}

/**
 * The model's reading of a decoded tag: a kv part counts as kv, a staged tag
 * as stg, aux without KV carries its expected chunk count as `chunk`. The
 * kv+state tag of prepped transfers (version unknown, §6) is not modelled;
 * null for it and for an event with no tag.
 */
export function notifOf(tag: NotifFields): Notif | null {
  const room = tag.room;
  if (room === undefined) return null;
  // Every result has all seven fields, written out: one object shape, built without a spread (800,000 of them on a large incident).
  switch (tag.tagKind) {
    case "kv":
      return { room, kind: "kv", chunk: tag.chunk ?? null, isLast: tag.isLast ?? false, src: tag.src ?? 0, part: null, parts: null };
    case "kv_part":
      return { room, kind: "kv", chunk: tag.chunk ?? null, isLast: tag.isLast ?? false, src: tag.src ?? 0, part: tag.part ?? null, parts: tag.parts ?? null };
    case "staged":
      return { room, kind: "stg", chunk: tag.chunk ?? null, isLast: tag.isLast ?? false, src: tag.src ?? 0, part: null, parts: null };
    case "state":
      return { room, kind: "state", chunk: null, isLast: true, src: tag.src ?? 0, part: null, parts: null };
    case "aux":
      return { room, kind: "aux", chunk: null, isLast: true, src: 0, part: null, parts: null };
    case "aux_nokv":
      return { room, kind: "aux_nokv", chunk: tag.expectedChunks ?? null, isLast: true, src: tag.src ?? 0, part: null, parts: null };
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
