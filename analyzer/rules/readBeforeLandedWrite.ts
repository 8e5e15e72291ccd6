// read-before-landed-write: a kernel read a page whose last write (an RDMA
// write of a KV chunk or of the index-K state) had been posted but had not
// landed yet — the model's shadow memory tracks, per (rank, buffer, layer,
// page), the last writer and whether it landed (DESIGN.md "The reference
// model"). A stale-slot reuse whose old write had not landed by the read is
// the same race across two rooms, so it is reported here too.
// Witness in the two-access shape: the read, then the write that had not
// landed; the location is in the text.

import type { Violation } from "../model/api.js";
import { at, detailOf, modelRule } from "./modelRule.js";
import { violationsOf } from "./replayEvidence.js";

export const readBeforeLandedWrite = modelRule({
  id: "read-before-landed-write",
  needs: ["probe kv.post / kv.done / kv.notify of the writer", "probe kernel.read of the reader"],
  restsOn: ["backend"],
  severity: "critical",
  title: (v, more) => `Room ${v.room ?? "?"} read ${detailOf(v, "buffer")} page ${detailOf(v, "page")} before room ${detailOf(v, "writerRoom")}'s write landed${more ? ` (+${more} more room(s))` : ""}`,
  witnessOrder: (v) => [v.seq, ...v.witness.filter((s) => s !== v.seq)],
  explain: (v, [read, post], evidence) =>
    `Let ${v.rank ?? "a rank"} read ${detailOf(v, "buffer")} layer ${detailOf(v, "layer")} page ${detailOf(v, "page")} for room ${v.room ?? "?"} (${at(evidence, read)}). ` +
    `Then the last write to that page — chunk ${detailOf(v, "chunk")} of room ${detailOf(v, "writerRoom")}, posted by ${detailOf(v, "poster")} (${at(evidence, post)}) — must have landed before the read, ` +
    `but it had not: ${typeof v.detail.why === "string" ? v.detail.why : "no completion of that write (kv.done or its notification) precedes the read"}.`,
  falsify: "Rerun with the reader gated on the transfer's completion (decode reads only after TransferStatus.is_done() counts every write to the room's pages); the read must then see the landed data.",
  mechanism: (v) => (v.room !== undefined && v.detail.writerRoom !== undefined && v.detail.writerRoom !== v.room ? "another-room" : "own-room"),
  facts: (v) => ({ crossRoom: v.room !== undefined && v.detail.writerRoom !== undefined && v.detail.writerRoom !== v.room }),
  derive: ({ replay }) => violationsOf(replay, "stale-slot-reuse").filter(unlandedAtRead).map(asEarlyRead),
});

/** The old room's write had not landed when the new room read the page. */
function unlandedAtRead(v: Violation): boolean {
  const land = v.detail.land;
  return land === null || land === undefined || (typeof land === "number" && land > v.seq);
}

function asEarlyRead(v: Violation): Violation {
  const post = typeof v.detail.post === "number" ? v.detail.post : -1;
  const land = typeof v.detail.land === "number" ? `; it landed only later` : "; it was still in flight";
  return {
    ...v,
    check: "read-before-landed-write",
    witness: [v.seq, post],
    message: `room ${v.room ?? "?"} read the page while room ${detailOf(v, "previousRoom")}'s chunk ${detailOf(v, "chunk")} write to it was unfinished${land}`,
    detail: {
      buffer: v.detail.buffer, layer: v.detail.layer, page: v.detail.page, writerRoom: v.detail.previousRoom, chunk: v.detail.chunk, poster: "prefill",
      why: `decode had freed the page while that write was in flight and given it to room ${v.room ?? "?"}${land}`,
    },
  };
}
