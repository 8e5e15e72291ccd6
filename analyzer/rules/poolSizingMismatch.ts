// pool-sizing-mismatch: the index-K pool sized for one row while the buffer
// holds another. SGLang's memory profiler and the NSA host pool hardcode the
// fp8 row (132 B/token, host page stride 132 × 64 = 8,448 B); a bf16 buffer
// needs 256 B/token and 16,384 B pages (docs/hicache-indexk.md §2.1,
// §2.3, [inference] there). Prefill and decode rows of different sizes are
// the same mistake across the transfer: `_send_kvcache_generic` addresses the
// destination with the sender's item_len (§2.4, [inference]). The model's
// sizing checks decide; this rule states them with the records that show the
// sizes: config records, the host pool's start-up line, the transfers' item_len.

import type { StoredEvent } from "../../store/read/events.js";
import type { Violation } from "../model/api.js";
import { profileSigns } from "../replay/derivedSigns.js";
import { decodeAs } from "../events/decode.js";
import type { Evidence } from "./evidence.js";
import { at, detailOf, modelRule } from "./modelRule.js";

export const poolSizingMismatch = modelRule({
  id: "pool-sizing-mismatch",
  needs: ["config or start-up lines: index-K dtype", "config: index_k_bytes_per_token, or the host pool's page stride line", "both sides' index-K dtype (item_len check)"],
  restsOn: ["indexKDtype", "indexKPageSize"],
  severity: "high",
  title: (v) => TITLES[String(v.detail.kind)]?.(v) ?? v.message,
  explain,
  falsify: "Size the index-K pool for the buffer's row (256 B/token, 16,384 B host pages for bf16) or run fp8 index-K, and compare free memory and HiCache restores at the same concurrency.",
  profileFields: ["indexKDtype", "indexKBytesPerTokenConfigured", "hostIndexKPageStride"],
  mechanism: (v) => String(v.detail.kind),
  support,
});

const TITLES: Record<string, (v: Violation) => string> = {
  "bytes-per-token": (v) => `Index-K pool sized at ${detailOf(v, "configured")} B/token for a ${detailOf(v, "dtype")} buffer of ${detailOf(v, "required")} B/token`,
  "host-page-stride": (v) => `HiCache host index-K page stride ${detailOf(v, "configured")} B for ${detailOf(v, "dtype")} device pages of ${detailOf(v, "required")} B`,
  "item-len": (v) => `Index-K transfer addressed with ${detailOf(v, "srcItemLen")} B pages into ${detailOf(v, "dstItemLen")} B decode pages`,
};

/** The records that state the mismatching sizes. */
function support(v: Violation, evidence: Evidence): StoredEvent[] {
  // Records of the mismatching size for the violation's dtype (a fp8 rank's 132 B/token is right).
  const configWith = (key: "index_k_bytes_per_token" | "host_index_k_page_stride", value: unknown): StoredEvent[] =>
    evidence.of("config").filter((e) => {
      const config = decodeAs(e, "config")!;
      return config[key] === value && (config.index_k_dtype ?? v.detail.dtype) === v.detail.dtype;
    });
  switch (v.detail.kind) {
    case "bytes-per-token":
      return configWith("index_k_bytes_per_token", v.detail.configured);
    case "host-page-stride": {
      const lines = profileSigns(evidence.db).filter((s) => s.hostIndexKPageStride === v.detail.configured).flatMap((s) => evidence.event(s.seq) ?? []);
      return [...configWith("host_index_k_page_stride", v.detail.configured), ...lines];
    }
    default: {
      const post = evidence.of("kv.post").find((e) => decodeAs(e, "kv.post")!.item_len === v.detail.srcItemLen);
      const meta = evidence.of("kv.meta").find((e) => decodeAs(e, "kv.meta")!.item_len === v.detail.dstItemLen);
      return [...(post ? [post] : []), ...(meta ? [meta] : [])];
    }
  }
}

function explain(v: Violation, witness: (StoredEvent | undefined)[], evidence: Evidence): string {
  const stated = witness.filter((e): e is StoredEvent => e !== undefined).map((e) => evidence.where(e)).join(", ") || "the replay profile";
  const kind = String(v.detail.kind);
  if (kind === "bytes-per-token") {
    const over = typeof v.detail.overCommitBytes === "number" ? `, ${(v.detail.overCommitBytes / 1024 ** 3).toFixed(2)} GiB per rank` : " per token and layer";
    return (
      `Let the index-K buffer be ${detailOf(v, "dtype")} (${stated}). Then each token needs ${detailOf(v, "required")} B per layer (docs/hicache-indexk.md §2.1) and the pool must be sized with that, ` +
      `but it was sized with ${detailOf(v, "configured")} B/token${v.detail.configured === 132 ? ", the fp8 constant the memory profiler hardcodes (docs/hicache-indexk.md §2.3)" : ""}: ` +
      `memory the pool uses but the profiler did not reserve${over}.`
    );
  }
  if (kind === "host-page-stride") {
    return (
      `Let the index-K buffer be ${detailOf(v, "dtype")} (${stated}). Then a device page is ${detailOf(v, "required")} B (docs/hicache-indexk.md §2.1) and the HiCache host pool must copy pages with that stride, ` +
      `but its stride is ${detailOf(v, "configured")} B${v.detail.configured === 8448 ? ", the fp8 value 132 × 64 hardcoded in NSATokenToKVPoolHost (docs/hicache-indexk.md §2.3)" : ""}: host↔device copies move partial pages.`
    );
  }
  const [config, post, meta] = witness;
  return (
    `Let prefill's index-K be ${detailOf(v, "prefillDtype")} (${detailOf(v, "srcItemLen")} B pages) and decode's ${detailOf(v, "decodeDtype")} (${detailOf(v, "dstItemLen")} B pages) (${at(evidence, config)}). ` +
    `Then decode page p must be written at p × ${detailOf(v, "dstItemLen")} B, but the transfer addresses both sides with the sender's item_len (docs/hicache-indexk.md §2.4)` +
    `${post && meta ? `: prefill posts item_len ${detailOf(v, "srcItemLen")} (${at(evidence, post)}) into decode pages of ${detailOf(v, "dstItemLen")} (${at(evidence, meta)})` : ""}, ` +
    `so page p lands at p × ${detailOf(v, "srcItemLen")} B and every page after the first is misplaced.`
  );
}
