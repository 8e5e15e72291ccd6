// hicache-ungated-read: an index-K reader ran while a HiCache host→device load
// of its layer was still in progress, and its accessor did not wait for the
// layer (sglang #22811: the ragged accessors lacked `wait_until`;
// docs/hicache-indexk.md §1.2–§1.4).

import type { StoredEvent } from "../../store/read/events.js";
import type { Violation } from "../model/api.js";
import { decodeAs } from "../events/decode.js";
import type { Evidence } from "./evidence.js";
import { at, detailOf, modelRule } from "./modelRule.js";
import { template } from "./failures.js";
import { violationsOf } from "./replayEvidence.js";
import { consistent, type Rule, type RuleResult } from "./rule.js";

const fromModel = modelRule({
  id: "hicache-ungated-read",
  needs: ["probe hicache.load / hicache.layer / hicache.wait", "probe kernel.read with its consumer slot", "config: version (which accessors wait)"],
  restsOn: ["hicache", "version", "indexKRaggedAccessorsWait"],
  severity: "critical",
  citeOthers: true,
  // One finding per reader that did not wait: the accessor when the probe names it, else why the read was ungated.
  mechanism: (v) => String(v.detail.accessor ?? template(String(v.detail.why ?? ""))),
  title: (v, more) => `Room ${v.room ?? "?"} read ${detailOf(v, "buffer")} layer ${detailOf(v, "layer")} before its HiCache layer loaded${more ? ` (+${more} more room(s))` : ""}`,
  explain: (v, [start, lastLayer, read], evidence) => {
    const path = read ? decodeAs(read, "kernel.read")?.path : undefined;
    const reader = v.detail.accessor ? String(v.detail.accessor) : path ? `the ${path} index-K read` : "the index-K read";
    return (
      `Let HiCache load slot ${detailOf(v, "slot")} start copying ${detailOf(v, "layers")} layers host→device on ${v.rank ?? "a rank"} (${at(evidence, start)}; last layer completion before the read: ${at(evidence, lastLayer)}). ` +
      `Then a reader of layer ${detailOf(v, "layer")} must wait for that layer's event (wait_until, docs/hicache-indexk.md §1.2–§1.3), ` +
      `but ${reader} of page ${detailOf(v, "page")} ran at ${at(evidence, read)} with ${detailOf(v, "layersDone")}/${detailOf(v, "layers")} layers loaded: ${detailOf(v, "why")}` +
      `${v.detail.raggedAccessorsWait === false ? " (this version's ragged accessors do not wait, before #22811)" : ""}.`
    );
  },
  falsify: "Disable HiCache at the same load (expect no corrupted session), or run a build with #22811's waits in the ragged index-K accessors.",
  derive: ({ evidence, replay }) => otherRanks(evidence, violationsOf(replay, "hicache-ungated-read")),
});

/**
 * HiCache stated off (a config record or start-up line, not the default):
 * no host→device layer load exists for a read to run ahead of (§1.2), and
 * the statement is what the rule checked.
 */
export const hicacheUngatedRead: Rule = {
  ...fromModel,
  run(ctx): RuleResult {
    const r = fromModel.run(ctx);
    const { replay } = ctx;
    if (r.checked > 0 || !replay || replay.profile.hicache || !replay.stated.includes("hicache") || r.findings.some((f) => f.verdict === "violated")) return r;
    const n = Math.max(1, replay.profileEvidence.hicache?.length ?? 0);
    return consistent("hicache-ungated-read", "HiCache is off: no layer load can race an index-K read",
      `The incident states HiCache off (${n} record(s) say so); without host→device layer loads no reader can run ahead of one (docs/hicache-indexk.md §1.2).`, n);
  },
};

/**
 * The model reports one ungated read per room; a room read on several ranks
 * (TP ranks each load their own copy) and layers raced on each. For every
 * room it flagged, the same test on its other reads, one per rank and layer: a read
 * with a consumer slot whose latest load had not completed the read's layer
 * and no wait_until on that slot for the layer (§1.2: wait(i) orders the
 * reader after layer i's completion).
 */
function otherRanks(evidence: Evidence, flagged: Violation[]): Violation[] {
  const out: Violation[] = [];
  for (const room of new Set(flagged.flatMap((v) => (v.room ? [v.room] : [])))) {
    const done = new Set(flagged.filter((v) => v.room === room).map((v) => `${v.rank}|${String(v.detail.layer)}`));
    for (const read of evidence.of("kernel.read").filter((e) => e.room === room && decodeAs(e, "kernel.read")!.buffer === "index_k")) {
      const rank = evidence.rank(read);
      const key = `${rank}|${read.layer}`;
      if (done.has(key)) continue;
      const v = ungated(evidence, read, rank);
      if (!v) continue;
      done.add(key);
      out.push(v);
    }
  }
  return out;
}

function ungated(evidence: Evidence, read: StoredEvent, rank: string): Violation | undefined {
  const decoded = decodeAs(read, "kernel.read")!;
  const slot = decoded.consumer;
  const layer = read.layer;
  if (slot === undefined || slot < 0 || layer === null) return undefined;
  const slotOf = (e: StoredEvent): number | undefined => decodeAs(e, "hicache.load", "hicache.layer", "hicache.wait")?.slot;
  const sameRank = (e: StoredEvent): boolean => e.host === read.host && e.role === read.role && e.tp === read.tp && slotOf(e) === slot;
  const load = evidence.of("hicache.load").filter((e) => sameRank(e) && e.seq < read.seq).at(-1);
  if (!load || !overlaps(load, read)) return undefined;
  const between = (e: StoredEvent): boolean => sameRank(e) && e.seq > load.seq && e.seq < read.seq;
  const layers = evidence.of("hicache.layer").filter(between);
  if (layers.some((e) => e.layer === layer) || evidence.of("hicache.wait").some((e) => between(e) && (e.layer ?? -1) >= layer)) return undefined;
  const lastLayer = layers.at(-1);
  return {
    check: "hicache-ungated-read",
    seq: read.seq,
    tsUs: read.tsUs,
    room: read.room!,
    rank,
    witness: [load.seq, lastLayer?.seq ?? -1, read.seq],
    message: `the read ran with layer ${layer} of load slot ${slot} not yet complete and no wait_until(${layer}) on that slot`,
    detail: { buffer: "index_k", layer, page: read.pageLo, accessor: decoded.accessor ?? null, slot, layersDone: layers.length, layers: decodeAs(load, "hicache.load")!.layers ?? "?", why: `no wait_until(${layer}) on slot ${slot} before the read` },
  };
}

function overlaps(a: StoredEvent, b: StoredEvent): boolean {
  return a.pageLo === null || b.pageLo === null || (a.pageLo < (b.pageHi ?? b.pageLo + 1) && b.pageLo < (a.pageHi ?? a.pageLo + 1));
}
