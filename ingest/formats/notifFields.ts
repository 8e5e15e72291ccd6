// A NIXL notification tag decoded onto its event when the line is read
// (docs/protocol.md §6; the grammar is domain/notifTag.ts): the room and the
// chunk go to their columns, the tag's other fields to attrs in the tag's
// order, and the tag text stays in attrs as it was written. Both places a
// tag appears use it: the `sending kvcache … with notif` line
// (its template in ingest/formats/templates/sglang/sglangNixl.ts) and the probe's `kv.notify` record
// (probeJsonl.ts). Readers read these fields; no tag is parsed after the
// store.

import type { ParsedEvent } from "../../domain/event.js";
import type { NotifTag } from "../../domain/notifTag.js";

/**
 * Puts `tag`'s fields on `ev`. A room or chunk the record stated apart from
 * the tag and that disagrees with it is kept in attrs under its own name: the
 * notification is about the tag's room and chunk (decode keys its
 * TransferStatus by them, §6).
 */
export function putNotifTag(ev: ParsedEvent, tag: NotifTag, attrs: Record<string, unknown>): void {
  if (ev.room !== undefined && ev.room !== tag.room) attrs.room = ev.room;
  ev.room = tag.room;
  if ("chunk" in tag) {
    if (ev.chunk !== undefined && ev.chunk !== tag.chunk) attrs.chunk = ev.chunk;
    ev.chunk = tag.chunk;
  }
  const fields = tag as unknown as Record<string, unknown>;
  for (const key in fields) if (key !== "room" && key !== "chunk") attrs[key] = fields[key];
}
