// stale-slot-reuse: a room read a page that holds another room's data
// (DESIGN.md incident 4; the race #35049's deferred release closes, §7.4 and
// docs/hicache-indexk.md §1.4 "Race #1"). Decided by the outcome: the
// page's owner read it while the last write to it came from a room that no
// longer or never owned it — still in flight at the read (also a
// read-before-landed-write), landed after the page was given out again,
// posted only after its room's pages were freed, or written by a room that
// never owned the page (model/shadowReads.ts). One finding per mechanism,
// naming the writer room, the reader room, the page and the free between them.

import { at, detailOf, modelRule } from "./modelRule.js";

/** How the writer's data got onto the page, from the places of its landing and the page's new allocation. */
const HOW: Record<string, (writer: string, land: string, alloc: string) => string> = {
  "in-flight": (_, land, alloc) => `that write was still in flight when decode freed the page; the page was given out again (${alloc}) and read while the write ${land === "no recorded line" ? "had not landed" : `landed only at ${land}`}`,
  "landed-after-reuse": (_, land, alloc) => `that write was still in flight when decode freed the page; the page was given out again (${alloc}) and the old write landed on it at ${land}, before the read`,
  "posted-after-free": (_, land, alloc) => `that write was posted only after decode had freed the room's pages; it landed at ${land} on the page, given out again (${alloc})`,
  "non-owner-write": (writer, land, alloc) => `room ${writer} never owned the page; its write landed at ${land} on a page given to the reader (${alloc})`,
};

export const staleSlotReuse = modelRule({
  id: "stale-slot-reuse",
  needs: ["probe kv.free / kv.alloc on decode", "probe kv.post / kv.done on prefill", "probe kernel.read on decode"],
  severity: "critical",
  mechanism: (v) => String(v.detail.mechanism ?? ""),
  // Another room of the group is shown by the free of its page's writer and its own read.
  representative: (v) => [typeof v.detail.free === "number" ? v.detail.free : -1, v.seq],
  title: (v, more) =>
    `Room ${v.room ?? "?"} read ${detailOf(v, "buffer")} page ${detailOf(v, "page")} holding room ${detailOf(v, "previousRoom")}'s data` +
    `${v.detail.mechanism === "in-flight" ? " (its write still landing)" : v.detail.mechanism === "posted-after-free" ? " (written after its free)" : ""}${more ? ` (+${more} more room(s))` : ""}`,
  explain: (v, [free, post, alloc, land, read], evidence) =>
    `Let decode free ${detailOf(v, "buffer")} page ${detailOf(v, "page")} of room ${detailOf(v, "previousRoom")} (${at(evidence, free)}), and prefill post that room's chunk ${detailOf(v, "chunk")} write to it (${at(evidence, post)}). ` +
    `Then no other room may read the page before its own data lands there, ` +
    `but ${(HOW[String(v.detail.mechanism)] ?? HOW["in-flight"]!)(detailOf(v, "previousRoom"), at(evidence, land), at(evidence, alloc))}, ` +
    `and room ${v.room ?? "?"} read it at ${at(evidence, read)}: the writer is room ${detailOf(v, "previousRoom")}, the reader room ${v.room ?? "?"}.`,
  // The page was freed before it was given out again; the stale data was there before the read:
  // written by a post still in flight at the read, or landed before it.
  because: (v, [free, post, alloc, land, read]) => [
    [free, alloc],
    ...(v.detail.mechanism === "posted-after-free" ? [[free, post] as [typeof free, typeof post]] : []),
    [v.detail.mechanism === "in-flight" ? post : land ?? post, read],
  ],
  falsify: "Rerun at the same load with SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE=1 (decode holds aborted rooms' pages until prefill drains, #35049): the reuse must disappear.",
});
