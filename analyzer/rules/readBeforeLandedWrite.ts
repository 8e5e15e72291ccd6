// read-before-landed-write: a kernel read a page whose last write (an RDMA
// write of a KV chunk, or a store) had been posted but had not landed yet —
// the model's shadow memory tracks, per (rank, buffer, layer, page), the last
// writer and whether it landed (DESIGN.md "The reference model").

import { at, detailOf, modelRule } from "./modelRule.js";

export const readBeforeLandedWrite = modelRule({
  id: "read-before-landed-write",
  needs: ["probe kv.post / kv.done / kv.notify of the writer", "probe kernel.read of the reader"],
  severity: "critical",
  title: (v, more) => `Room ${v.room ?? "?"} read ${detailOf(v, "buffer")} page ${detailOf(v, "page")} before room ${detailOf(v, "writerRoom")}'s write landed${more ? ` (+${more} more)` : ""}`,
  // Two-access shape: the read, then the conflicting write that had not landed, then the location.
  explain: (v, [post, read], evidence) =>
    `Let ${v.rank ?? "a rank"} read ${detailOf(v, "buffer")} layer ${detailOf(v, "layer")} page ${detailOf(v, "page")} for room ${v.room ?? "?"} (${at(evidence, read)}). ` +
    `Then the last write to that page — chunk ${detailOf(v, "chunk")} of room ${detailOf(v, "writerRoom")}, posted by ${detailOf(v, "poster")} (${at(evidence, post)}) — must have landed before the read, ` +
    `but it had not: ${v.message}.`,
  falsify: "Rerun with the reader gated on the transfer's completion (decode reads only after TransferStatus.is_done()); the read must then see the landed data.",
  facts: (v) => ({ crossRoom: v.room !== undefined && v.detail.writerRoom !== undefined && v.detail.writerRoom !== v.room, writer: "transfer" }),
});
