// incomplete-completion: decode treated a room's transfer as done while part
// of it had not arrived. NIXL's TransferStatus.is_done() needs every KV chunk
// of every source, the aux notification and, when expected, the state
// (sglang-pd-logs-and-protocol.md §6); a check that skips aux or state lets
// decode read metadata or state that has not landed.

import { at, modelRule } from "./modelRule.js";

export const incompleteCompletion = modelRule({
  id: "incomplete-completion",
  needs: ["probe kv.notify (kv chunks, aux, state tags) on decode", "probe kv.poll or req lifecycle records showing completion"],
  severity: "high",
  title: (v, more) => `Room ${v.room ?? "?"} completed without all of its transfer${more ? ` (+${more} more)` : ""}`,
  explain: (v, witness, evidence) =>
    `Let room ${v.room ?? "?"} be treated as transferred on ${v.rank ?? "decode"} (${at(evidence, witness.at(-1))}). ` +
    `Then TransferStatus.is_done() must have seen every KV chunk of every source, the aux notification and the expected state (§6), ` +
    `but ${v.message}.`,
  falsify: "Rerun with completion logged per notification (kv, aux, state); a room must not complete before all three arrive.",
});
