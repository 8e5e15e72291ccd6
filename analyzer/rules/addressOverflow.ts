// address-overflow: latent addressing risks visible from the configuration.
// 1. The sparse indexer addresses its logits as `b * max_seq_len + t` in int32
//    (DESIGN.md incident 7): past 2^31 - 1 the address wraps. With the DESIGN's
//    "above ~1M context" the row count is about 2048 [inference]; a run that
//    states `max_running_requests` is checked with that instead.
// 2. A transfer addresses the destination with the sender's item_len
//    (`dst_ptr + dst_idx * item_len`, hicache-indexk-scheduler.md §2.4,
//    [inference]): prefill and decode index-K rows of different sizes put every
//    page but the first at the wrong offset.

import type { StoredEvent } from "../../ingest/store/queries.js";
import type { RunConfig } from "./config.js";
import { uniqueEvents, type Evidence } from "./evidence.js";
import { indexKRowBytes } from "./indexK.js";
import { consistent, undetermined, type DraftFinding, type Rule, type RuleResult } from "./rule.js";

const INT32_MAX = 2 ** 31 - 1;
const ASSUMED_LOGIT_ROWS = 2048;

export const addressOverflow: Rule = {
  id: "address-overflow",
  needs: ["config: max_context (and max_running_requests if stated)", "config: index_k_dtype of prefill and decode"],
  run({ evidence }): RuleResult {
    const config = evidence.config();
    const findings: DraftFinding[] = [];
    const missing: string[] = [];
    let checked = 0;
    const maxContext = config.entry("max_context");
    if (maxContext) {
      checked++;
      const f = logitsOverflow(evidence, config, maxContext.ev, Number(maxContext.value));
      if (f) findings.push(f);
    } else missing.push("config: max_context");
    const prefill = config.byRole("index_k_dtype").find((e) => e.role === "prefill");
    const decode = config.byRole("index_k_dtype").find((e) => e.role === "decode");
    if (prefill && decode) {
      checked++;
      const f = itemLenMismatch(evidence, prefill, decode);
      if (f) findings.push(f);
    } else missing.push("config: index_k_dtype stated by both prefill and decode");
    if (findings.length > 0) return { checked, findings };
    if (checked === 0) {
      return undetermined("address-overflow", "Context length and per-side dtypes unknown: addressing cannot be checked", missing,
        "Neither the maximum context nor both sides' index-K dtypes are stated in the incident.");
    }
    return consistent("address-overflow", "Indexer and transfer addressing fit their ranges",
      `Checked ${checked} addressing bound(s): the int32 indexer logits address and the transfer row size agree with the configuration.` +
        (missing.length ? ` Not checked: ${missing.join("; ")}.` : ""), checked);
  },
};

function logitsOverflow(evidence: Evidence, config: RunConfig, ev: StoredEvent, maxContext: number): DraftFinding | undefined {
  const stated = config.entry("max_running_requests");
  const rows = stated ? Number(stated.value) : ASSUMED_LOGIT_ROWS;
  const highest = rows * maxContext + (maxContext - 1);
  if (highest <= INT32_MAX) return undefined;
  const safeContext = Math.floor(INT32_MAX / (rows + 1));
  return {
    rule: "address-overflow",
    severity: "medium",
    verdict: "violated",
    title: `Indexer logits address overflows int32 at ${maxContext} context`,
    ranks: [evidence.rank(ev)],
    tsUs: ev.tsUs,
    witness: uniqueEvents([ev, ...(stated ? [stated.ev] : [])]),
    explanation:
      `Let the maximum context be ${maxContext} tokens (${evidence.where(ev)}) and the indexer address up to ${rows} rows ` +
      `(${stated ? `max_running_requests, ${evidence.where(stated.ev)}` : "assumed: the ~1M-context threshold of the incident write-up"}). ` +
      `Then the logits address b * max_seq_len + t reaches ${highest}, but int32 holds at most ${INT32_MAX}: ` +
      `requests near the full context would read and write wrapped addresses (safe up to ~${safeContext} tokens at this row count).`,
    falsify: `Run one request of ${maxContext} tokens with ${rows} concurrent rows and compare the indexer's top-k against a reference at int64; or cap the context at ${safeContext}.`,
    facts: { maxContext, rows, highest },
  };
}

function itemLenMismatch(evidence: Evidence, prefill: { value: unknown; ev: StoredEvent }, decode: { value: unknown; ev: StoredEvent }): DraftFinding | undefined {
  const pRow = indexKRowBytes(String(prefill.value));
  const dRow = indexKRowBytes(String(decode.value));
  if (pRow === undefined || dRow === undefined || pRow === dRow) return undefined;
  return {
    rule: "address-overflow",
    severity: "high",
    verdict: "violated",
    title: `Index-K transfer addressed with ${pRow} B rows into ${dRow} B decode rows`,
    ranks: [evidence.rank(prefill.ev), evidence.rank(decode.ev)],
    tsUs: Math.max(prefill.ev.tsUs, decode.ev.tsUs),
    witness: [prefill.ev, decode.ev],
    explanation:
      `Let prefill's index-K be ${String(prefill.value)} (${pRow} B/token, ${evidence.where(prefill.ev)}) and decode's be ${String(decode.value)} (${dRow} B/token, ${evidence.where(decode.ev)}). ` +
      `Then the transfer must address decode page p at p × ${dRow * 64} B, but it uses the sender's item_len for both sides (§2.4, dst_ptr + dst_idx × item_len): ` +
      `decode page p is written at p × ${pRow * 64} B, so every page after the first lands at the wrong offset.`,
    falsify: "Run prefill and decode with the same index-K dtype; the mismatch disappears and so must its corruption.",
    facts: { prefillRow: pRow, decodeRow: dRow },
  };
}
