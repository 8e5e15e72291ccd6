// address-overflow: the sparse indexer addresses its logits as
// `b * max_seq_len + t` in int32 (DESIGN.md incident 7): past 2^31 - 1 the
// address wraps. The model's check decides, from the maximum context and the
// indexer's row count (assumed when the run does not state it).

import { decodeAs } from "../events/decode.js";
import { at, detailOf, modelRule } from "./modelRule.js";

export const addressOverflow = modelRule({
  id: "address-overflow",
  needs: ["config: max_context (and the indexer's row count when stated)"],
  restsOn: ["maxContext"],
  severity: "medium",
  title: (v) => `Indexer logits address overflows int32 at ${detailOf(v, "maxContext")} context`,
  explain: (v, witness, evidence) =>
    `Let the maximum context be ${detailOf(v, "maxContext")} tokens (${at(evidence, witness.at(-1))}) and the indexer address ${detailOf(v, "rows")} rows` +
    `${v.detail.rowsAssumed === true ? " (assumed: the run states no indexer row count)" : ""}. ` +
    `Then the logits address b * max_seq_len + t reaches ${detailOf(v, "maxAddress")}, but int32 holds at most 2147483647: ` +
    `it wraps to ${detailOf(v, "wrapped")}, first at a sequence length of ${detailOf(v, "firstOverflowingSeqLen")}.`,
  falsify: "Run one request near the maximum context with the indexer at full rows and compare its top-k against an int64 reference, or cap the context below the first overflowing length.",
  profileFields: ["maxContext", "indexerLogitRows"],
  // The model points at the record it checked; the records stating the context say more.
  witnessOrder: () => [],
  // The config records that state this maximum context (and, with it, the running-request count).
  support: (v, evidence) => evidence.of("config").filter((e) => decodeAs(e, "config")!.max_context === v.detail.maxContext),
});
