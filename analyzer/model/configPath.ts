// Checks a run's configuration reveals on its own: index-K pool sizing and
// host page stride (docs/hicache-indexk.md §2.3), the int32 indexer
// logits address, and one item_len for prefill and decode rows of different
// size (§2.4). Each is raised once per incident.

import type { IndexKDtype } from "../../domain/vocabulary.js";
import { rowBytes, INDEX_K_PAGE_TOKENS } from "./indexK.js";
import { settingsFromConfig } from "./profile.js";
import { PREFILL, DECODE } from "./ranks.js";
import { checkPoolSizing, DEFAULT_LOGIT_ROWS, logitsAddressCheck } from "./sizing.js";
import { SEEN, type ModelState } from "./state.js";
import type { EventPlace } from "./api.js";
import type { EventOf } from "../../domain/domainEvent.js";

const BYTES = 1;
const STRIDE = 2;
const ITEM_LEN = 4;
const OVERFLOW = 8;

interface ConfigFacts {
  dtype: IndexKDtype;
  pageTokens: number;
  bytesPerToken?: number;
  hostStride?: number;
  layers?: number;
  tokens?: number;
  maxContext?: number;
  rows?: number;
}

/**
 * `config`: the run's settings as this rank states them. A setting the record
 * leaves out is the profile's, which a start-up line may have stated
 * (replay/profileSelection.ts): a config record is not the only evidence.
 */
export function onConfig(s: ModelState, ev: EventOf<"config">): void {
  s.seen |= SEEN.config;
  const given = settingsFromConfig(ev.settings);
  const facts: ConfigFacts = {
    dtype: given.indexKDtype ?? s.profile.indexKDtype,
    pageTokens: given.indexKPageSize ?? s.profile.indexKPageSize,
    bytesPerToken: given.indexKBytesPerTokenConfigured ?? s.profile.indexKBytesPerTokenConfigured,
    hostStride: given.hostIndexKPageStride ?? s.profile.hostIndexKPageStride,
    layers: ev.num_layers,
    tokens: ev.max_total_tokens,
    maxContext: given.maxContext,
    rows: ev.indexer_logit_rows,
  };
  const role = ev.role === "prefill" ? PREFILL : ev.role === "decode" ? DECODE : -1;
  if (role >= 0 && given.indexKDtype !== undefined) s.roleDtypes[role] = given.indexKDtype;
  check(s, ev, facts, "config");
  if (ev.index_k_dtype !== undefined) checkItemLen(s, ev);
}

/** At the end: what the profile alone states, when no config record carried it. */
export function checkProfileAtEnd(s: ModelState, ev: EventPlace): void {
  const p = s.profile;
  check(s, ev, { dtype: p.indexKDtype, pageTokens: p.indexKPageSize, bytesPerToken: p.indexKBytesPerTokenConfigured, hostStride: p.hostIndexKPageStride, maxContext: p.maxContext, rows: p.indexerLogitRows }, "profile");
}

function check(s: ModelState, ev: EventPlace, f: ConfigFacts, basis: "config" | "profile"): void {
  const witness = basis === "config" ? [ev.seq] : [];
  if (f.bytesPerToken !== undefined || f.hostStride !== undefined) {
    s.count("pool-sizing-mismatch");
  }
  for (const m of checkPoolSizing({ dtype: f.dtype, pageTokens: f.pageTokens, configuredBytesPerToken: f.bytesPerToken, hostPageStride: f.hostStride, layers: f.layers, tokens: f.tokens })) {
    const bit = m.kind === "bytes-per-token" ? BYTES : STRIDE;
    if (s.configFlags & bit) continue;
    s.configFlags |= bit;
    s.violation("pool-sizing-mismatch", ev, witness, m.message, { kind: m.kind, required: m.required, configured: m.configured, overCommitBytes: m.overCommitBytes, dtype: f.dtype, basis });
  }
  const maxContext = f.maxContext ?? s.profile.maxContext;
  if (maxContext === undefined) return;
  s.count("address-overflow");
  const rows = f.rows ?? s.profile.indexerLogitRows ?? DEFAULT_LOGIT_ROWS;
  const a = logitsAddressCheck(rows, maxContext);
  if (!a.overflows || s.configFlags & OVERFLOW) return;
  s.configFlags |= OVERFLOW;
  s.violation(
    "address-overflow",
    ev,
    witness,
    `indexer logits address b * max_seq_len + t reaches ${a.maxAddress} at max_context ${maxContext} and ${rows} rows, past int32 (wraps to ${a.wrapped})`,
    { maxContext, rows, maxAddress: a.maxAddress, wrapped: a.wrapped, firstOverflowingSeqLen: a.firstOverflowingSeqLen, rowsAssumed: f.rows === undefined && s.profile.indexerLogitRows === undefined, basis },
  );
}

/**
 * Prefill and decode state different index-K dtypes: `_send_kvcache_generic`
 * addresses the destination with the sender's item_len (one page row), so
 * rows of 8,448 vs 16,384 B land misplaced ([inference] §2.4).
 */
function checkItemLen(s: ModelState, ev: EventPlace): void {
  const p = s.roleDtypes[PREFILL];
  const d = s.roleDtypes[DECODE];
  if (p === null || d === null) return;
  s.count("pool-sizing-mismatch");
  if (p === d || s.configFlags & ITEM_LEN) return;
  s.configFlags |= ITEM_LEN;
  const src = rowBytes(p as IndexKDtype) * INDEX_K_PAGE_TOKENS;
  const dst = rowBytes(d as IndexKDtype) * INDEX_K_PAGE_TOKENS;
  s.violation(
    "pool-sizing-mismatch",
    ev,
    [ev.seq],
    `prefill index-K is ${p} (item_len ${src} B) but decode is ${d} (${dst} B): the state transfer addresses decode pages with the sender's item_len`,
    { kind: "item-len", prefillDtype: p, decodeDtype: d, srcItemLen: src, dstItemLen: dst },
  );
}
