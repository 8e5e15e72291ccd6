// stale-slot-reuse: decode released a room's pages (timeout or abort) while
// prefill's RDMA writes for that room were still in flight, gave them to a new
// room, and the new room read them: it reads the old room's index-K
// (DESIGN.md incident 4; the race #35049's deferred release closes, §7.4 and
// hicache-indexk-scheduler.md §1.4 "Race #1").

import { at, detailOf, modelRule } from "./modelRule.js";

export const staleSlotReuse = modelRule({
  id: "stale-slot-reuse",
  needs: ["probe kv.free / kv.alloc on decode", "probe kv.post / kv.done on prefill", "probe kernel.read on decode"],
  severity: "critical",
  title: (v, more) => `Room ${v.room ?? "?"} read page ${detailOf(v, "page")} still being written for room ${detailOf(v, "previousRoom")}${more ? ` (+${more} more)` : ""}`,
  explain: (v, [free, post, alloc, land, read], evidence) =>
    `Let decode free ${detailOf(v, "buffer")} page ${detailOf(v, "page")} of room ${detailOf(v, "previousRoom")} (${at(evidence, free)}) while that room's chunk ${detailOf(v, "chunk")} write, posted at ${at(evidence, post)}, was still in flight. ` +
    `Then the page must not go to another room until the write lands, but it was allocated again (${at(evidence, alloc)}) and room ${v.room ?? "?"} read it at ${at(evidence, read)}; ` +
    `the old write ${land ? `landed at ${at(evidence, land)}, after the reallocation` : "had not landed by then"}.`,
  falsify: "Rerun at the same load with SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE=1 (decode holds aborted rooms' pages until prefill drains, #35049): the reuse must disappear.",
});
