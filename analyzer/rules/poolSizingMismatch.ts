// pool-sizing-mismatch: the index-K pool sized for one row size while the
// buffer holds another. SGLang's memory profiler and the NSA host pool hardcode
// the fp8 row (132 B/token, host page stride 132*64 = 8,448 B), so a bf16
// index-K buffer (256 B/token, 16,384 B pages) is under-counted by 124 B per
// token and layer and its host copies use the wrong stride
// (hicache-indexk-scheduler.md §2.1, §2.3; the combination upstream is [unverified]).

import type { Role } from "../../ingest/event.js";
import type { StoredEvent } from "../../ingest/store/queries.js";
import type { RunConfig } from "./config.js";
import { uniqueEvents, type Evidence } from "./evidence.js";
import { DEFAULT_INDEX_K_PAGE_TOKENS, indexKRowBytes } from "./indexK.js";
import { consistent, undetermined, type DraftFinding, type Rule, type RuleResult } from "./rule.js";

const FALSIFY =
  "Rerun with the pool sized for the buffer's row (256 B/token for bf16) or with fp8 index-K, and compare free memory and HiCache restores at the same concurrency.";

export const poolSizingMismatch: Rule = {
  id: "pool-sizing-mismatch",
  needs: ["config: index_k_dtype", "config: index_k_bytes_per_token and/or host_index_k_page_stride (as sized)"],
  run({ evidence }): RuleResult {
    const config = evidence.config();
    const roles = rolesStatingDtype(config);
    if (roles.length === 0) {
      return undetermined("pool-sizing-mismatch", "Index-K dtype unknown: pool sizing cannot be checked", ["config: index_k_dtype"],
        "No record states the index-K dtype, so the row size the pool needs is unknown (§2.1).");
    }
    const findings: DraftFinding[] = [];
    let checked = 0;
    for (const role of roles) {
      const r = checkRole(evidence, config, role);
      checked += r.checked;
      findings.push(...r.findings);
    }
    if (findings.length > 0) return { checked, findings };
    if (checked === 0) {
      return undetermined("pool-sizing-mismatch", "Pool sizing not stated: cannot compare with the index-K row size",
        ["config: index_k_bytes_per_token", "config: host_index_k_page_stride"],
        `The index-K dtype is known (${roles.map((r) => `${r}: ${config.str("index_k_dtype", r)}`).join(", ")}) but no record states the bytes per token the pool was sized with or the host page stride.`);
    }
    return consistent("pool-sizing-mismatch", "Index-K pool sizing matches the buffer's row size",
      `Checked ${checked} sizing value(s) against the row size of each role's index-K dtype (§2.1): all match.`, checked);
  },
};

/** The roles with their own dtype, or one "any" pass when only a shared record states it. */
function rolesStatingDtype(config: RunConfig): (Role | undefined)[] {
  const stated = config.byRole("index_k_dtype");
  if (stated.length === 0) return [];
  const roles = stated.filter((s) => s.role !== "any").map((s) => s.role as Role);
  return roles.length > 0 ? roles : [undefined];
}

function checkRole(evidence: Evidence, config: RunConfig, role: Role | undefined): RuleResult {
  const dtypeEntry = config.entry("index_k_dtype", role)!;
  const dtype = String(dtypeEntry.value);
  const row = indexKRowBytes(dtype);
  if (row === undefined) return { checked: 0, findings: [] };
  const pageTokens = config.num("page_size", role) ?? DEFAULT_INDEX_K_PAGE_TOKENS;
  const findings: DraftFinding[] = [];
  let checked = 0;
  const sized = config.entry("index_k_bytes_per_token", role);
  if (sized !== undefined) {
    checked++;
    const bytes = Number(sized.value);
    if (bytes !== row) findings.push(sizedFinding(evidence, config, role, dtypeEntry.ev, sized.ev, dtype, row, bytes));
  }
  const stride = config.entry("host_index_k_page_stride", role);
  if (stride !== undefined && config.bool("hicache", role) !== false) {
    checked++;
    const strideBytes = Number(stride.value);
    if (strideBytes !== row * pageTokens) findings.push(strideFinding(evidence, role, dtypeEntry.ev, stride.ev, dtype, row, pageTokens, strideBytes));
  }
  return { checked, findings };
}

function sizedFinding(evidence: Evidence, config: RunConfig, role: Role | undefined, dtypeEv: StoredEvent, sizedEv: StoredEvent,
  dtype: string, row: number, bytes: number): DraftFinding {
  const layers = config.num("num_layers", role);
  const tokens = config.num("max_total_num_tokens", role);
  const deficit = row - bytes;
  const total = layers !== undefined && tokens !== undefined ? ` × ${layers} layers × ${tokens} tokens = ${gib(deficit * layers * tokens)} per rank` : " per layer";
  return {
    rule: "pool-sizing-mismatch",
    severity: "high",
    verdict: "violated",
    title: `Index-K pool sized at ${bytes} B/token for a ${dtype} buffer of ${row} B/token${role ? ` (${role})` : ""}`,
    ranks: [evidence.rank(sizedEv)],
    tsUs: sizedEv.tsUs,
    witness: uniqueEvents([dtypeEv, sizedEv]),
    explanation:
      `Let the index-K buffer be ${dtype} (${evidence.where(dtypeEv)}). Then each token needs ${row} B per layer (§2.1) and the pool must be sized with ${row} B/token, ` +
      `but it was sized with ${bytes} B/token (${evidence.where(sizedEv)})${bytes === 132 ? ", the fp8 constant hardcoded in the memory profiler (§2.3)" : ""}: ` +
      `${deficit > 0 ? `${deficit} B/token uncounted${total}, memory the pool uses but the profiler did not reserve` : `${-deficit} B/token over-reserved`}.`,
    falsify: FALSIFY,
    facts: { dtype, rowBytes: row, sizedBytes: bytes },
  };
}

function strideFinding(evidence: Evidence, role: Role | undefined, dtypeEv: StoredEvent, strideEv: StoredEvent,
  dtype: string, row: number, pageTokens: number, stride: number): DraftFinding {
  return {
    rule: "pool-sizing-mismatch",
    severity: "high",
    verdict: "violated",
    title: `HiCache host index-K page stride ${stride} B for ${dtype} device pages of ${row * pageTokens} B${role ? ` (${role})` : ""}`,
    ranks: [evidence.rank(strideEv)],
    tsUs: strideEv.tsUs,
    witness: uniqueEvents([dtypeEv, strideEv]),
    explanation:
      `Let the index-K buffer be ${dtype} (${evidence.where(dtypeEv)}). Then a device page of ${pageTokens} tokens is ${pageTokens} × ${row} = ${row * pageTokens} B (§2.1) ` +
      `and the host pool must copy pages with that stride, but the host stride is ${stride} B (${evidence.where(strideEv)})` +
      `${stride === 132 * pageTokens ? `, the fp8 value 132 × ${pageTokens} hardcoded in NSATokenToKVPoolHost (§2.3)` : ""}: host↔device copies move partial pages.`,
    falsify: FALSIFY,
    facts: { dtype, rowBytes: row, hostStride: stride },
  };
}

function gib(bytes: number): string {
  return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
}
