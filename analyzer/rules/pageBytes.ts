// page-bytes: what the dumped pages hold (issue 15). The replay's page
// kernels recomputed every page's own checksum and compared every decode page
// byte for byte with prefill's page of the same (room, buffer, layer, pos)
// (analyzer/model/pageKernels.ts); a differing one is diagnosed against the bytes (analyzer/pages/diagnosis.ts): the mechanism
// that reproduces them exactly, or none. Requantization of bf16 to fp8 is
// precision, not corruption, and is reported as such.

import type { StoredEvent } from "../../store/read/events.js";
import type { Mechanism } from "../pages/diagnosis.js";
import { incidentPages } from "../pages/dumpedPages.js";
import { pairExcerpt } from "../pages/excerpt.js";
import type { PagePair } from "../pages/pairs.js";
import type { Evidence } from "./evidence.js";
import type { Severity } from "../../domain/vocabulary.js";
import { mergeByMechanism } from "./grouping.js";
import { undetermined, type DraftFinding, type Rule, type RuleResult } from "./rule.js";

const SEVERITY: Record<Mechanism | "none", Severity> = {
  quantization: "info",
  stale: "critical",
  "scale-only": "high",
  torn: "high",
  layout: "high",
  "item-length": "high",
  none: "high",
};

/** What would refute each diagnosis (docs/protocol.md §7.4, docs/hicache-indexk.md §2.1–2.4). */
const FALSIFY: Record<Mechanism | "none", string> = {
  quantization: "Dump prefill's page after its own fp8 quantization (both sides fp8): the pages must then be equal byte for byte.",
  stale:
    "Rerun with decode page release deferred until prefill's writes drain (SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE=1, docs/protocol.md §7.4): the decode page must then equal prefill's.",
  "scale-only":
    "Dump the scale region (bytes 8192..8448) right after decode's transfer lands and again before the read: scales that are prefill's at landing and change later were overwritten after the transfer; scales wrong at landing were not transferred.",
  torn:
    "Dump the page again after the room's last notification (is_last) has arrived: rows that become the room's were a write still in flight when the page was dumped or read; rows that stay old were never written by this transfer.",
  layout:
    "Dump both sides' pool dtype and page bytes at registration (get_state_buf_infos item_lens, docs/hicache-indexk.md §2.4) and run both sides with the same index-K dtype: the pages must then agree.",
  "item-length":
    "Log the item_lens prefill and decode register for the index-K state buffers and run both sides with one index-K dtype (132 or 256 B/token on both): the transfer must then place each page at its own offset.",
  none: "Dump the page at each step (prefill after the store, decode after the transfer, before the read) to find the step where the bytes change.",
};

export const pageBytes: Rule = {
  id: "page-bytes",
  needs: ["page dumps: prefill_store and decode_recv / decode_read pages with their bytes, per (room, buffer, layer, pos)"],
  run({ evidence, replay: run }): RuleResult {
    const replay = incidentPages(evidence, run?.pages);
    const findings: DraftFinding[] = [];
    if (replay.disagreements.length > 0) findings.push(checksumFinding(evidence, replay.disagreements.map((d) => ({ ev: d.page.ref, recomputed: d.recomputed, algo: d.page.checksum!.algo, stated: d.page.checksum!.value }))));
    if (replay.pairs.length === 0) {
      findings.push(...undetermined("page-bytes", "No prefill/decode page pairs to compare",
        ["page dumps of both sides for the same (room, buffer, layer, pos)"],
        `The incident holds ${replay.pages.length} dumped page(s) (${replay.unread.length} record(s) without bytes); none pairs a decode page with prefill's.`).findings);
      return { checked: replay.pages.length, findings };
    }
    const perRoom = new Map<string, PagePair<StoredEvent>[]>();
    for (const p of replay.pairs) {
      if (!p.diagnosis) continue;
      const key = `${p.diagnosis.mechanism}|${p.decode.room}`;
      perRoom.set(key, [...(perRoom.get(key) ?? []), p]);
    }
    const drafts = [...perRoom.values()].map((pairs) => roomFinding(evidence, pairs));
    const equal = replay.pairs.filter((p) => !p.diagnosis).length;
    findings.push(...mergeByMechanism(drafts, (f) => String(f.facts?.mechanism), (lead, n) => `${n} rooms' decode pages: ${String(lead.facts?.mechanism)} (${equal}/${replay.pairs.length} pages equal prefill's)`));
    if (drafts.length === 0) {
      findings.push({
        rule: "page-bytes", severity: "info", verdict: "consistent", title: `All ${replay.pairs.length} decode pages equal prefill's byte for byte`, ranks: [], witness: [],
        explanation: `Compared ${replay.pairs.length} decode page(s) with prefill's page of the same (room, buffer, layer, pos): every byte agrees.`, falsify: "", checked: replay.pairs.length,
      });
    }
    return { checked: replay.pairs.length, findings };
  },
};

function roomFinding(evidence: Evidence, pairs: PagePair<StoredEvent>[]): DraftFinding {
  const { prefill, decode, diagnosis } = pairs[0]!;
  const d = diagnosis!;
  const rank = evidence.rank(decode.ref);
  const where = `${decode.buffer} layer ${decode.layer} pos ${decode.pos}`;
  const row = d.tornAt?.row ?? d.rows[0] ?? 0;
  const ranges = d.ranges.slice(0, 4).map((r) => `${r.start}..${r.end}`).join(", ");
  const also = d.alsoReproducedBy.length ? ` (${d.alsoReproducedBy.join(", ")} reproduce the bytes as well)` : "";
  const rowsText = d.rows.length === 0 ? "no row differs in bytes" : `rows ${compactRows(d.rows)} differ`;
  return {
    rule: "page-bytes",
    severity: SEVERITY[d.mechanism],
    verdict: d.corruption ? "violated" : "consistent",
    title: `Room ${decode.room}: decode ${where} ${d.corruption ? "is" : "differs by"} ${d.mechanism === "none" ? "corrupted by no known mechanism" : d.mechanism}${d.tornAt ? ` (torn at row ${d.tornAt.row})` : ""}${d.mechanism === "stale" ? ` (room ${d.sourceRoom}'s page)` : ""}${pairs.length > 1 ? `, ${pairs.length} pages` : ""}`,
    room: decode.room,
    ranks: [rank],
    tsUs: decode.ref.tsUs,
    witness: [prefill.ref, decode.ref],
    explanation:
      `Let prefill store room ${decode.room}'s ${where} as ${prefill.bytes.length} B of ${prefill.dtype} (${evidence.where(prefill.ref)}). ` +
      `Then ${rank} page ${decode.page} (${decode.side}, ${evidence.where(decode.ref)}) must hold the same bytes, but ${rowsText}: ${d.detail}${also}` +
      `${ranges ? `; bytes ${ranges}` : ""}. ${pairExcerpt({ dtype: decode.dtype, bytes: decode.bytes }, { dtype: prefill.dtype, bytes: prefill.bytes }, row)}.`,
    falsify: FALSIFY[d.mechanism],
    checked: pairs.length,
    facts: {
      mechanism: d.mechanism,
      corruption: d.corruption,
      pages: pairs.map((p) => ({ layer: p.decode.layer, pos: p.decode.pos, page: p.decode.page, side: p.decode.side, mechanism: p.diagnosis!.mechanism, tornAt: p.diagnosis!.tornAt, sourceRoom: p.diagnosis!.sourceRoom })),
      ...(d.sourceRoom != null && { sourceRoom: d.sourceRoom }),
    },
  };
}

/** 3, 4, 5, 9 → "3..5, 9". */
export function compactRows(rows: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < rows.length; ) {
    let j = i;
    while (j + 1 < rows.length && rows[j + 1] === rows[j]! + 1) j++;
    parts.push(j === i ? `${rows[i]}` : `${rows[i]}..${rows[j]}`);
    i = j + 1;
  }
  return parts.join(", ");
}

function checksumFinding(evidence: Evidence, bad: { ev: StoredEvent; recomputed: string; algo: string; stated: string }[]): DraftFinding {
  const first = bad[0]!;
  return {
    rule: "page-bytes",
    severity: "high",
    verdict: "violated",
    title: `${bad.length} dumped page(s) disagree with their own checksum`,
    ...(first.ev.room !== null && { room: first.ev.room }),
    ranks: [...new Set(bad.map((b) => evidence.rank(b.ev)))].sort(),
    tsUs: first.ev.tsUs,
    witness: bad.slice(0, 5).map((b) => b.ev),
    explanation:
      `Let the dump at ${evidence.where(first.ev)} state ${first.algo} ${first.stated} for its page. Then the bytes stored for it must hash to ${first.stated}, ` +
      `but they hash to ${first.recomputed}: the bytes are not the page the checksum was taken of (dumped at another moment, or cut or misplaced in the file)${bad.length > 1 ? `; ${bad.length - 1} more record(s) likewise` : ""}.`,
    falsify: "Dump the checksum and the bytes from the same tensor in one step (checksum of tensor.cpu() bytes, then write those bytes): they must then agree.",
    checked: bad.length,
    facts: { kind: "self-checksum" },
  };
}
