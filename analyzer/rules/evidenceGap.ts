// evidence-gap: what the incident lacks, so that no other verdict is read as
// stronger than its evidence (DESIGN.md "Findings": a missing role, missing
// ranks against the stated parallelism, skipped sources and silent stretches
// are evidence gaps). The gaps are found before the rules run (gaps/); this
// rule reports them, one finding per kind, each naming the rules it blinds
// (undetermined for want of what is missing) and those it only weakens.

import type { CoverageGap } from "./finding.js";
import { consistent, type DraftFinding, type Rule, type RuleResult } from "./rule.js";

export const evidenceGap: Rule = {
  id: "evidence-gap",
  needs: ["sources and their parse errors", "events per rank", "the stated parallelism (tp_size)", "meta clock_offsets"],
  run({ evidence, gaps }): RuleResult {
    const checked = evidence.sources().length;
    if (gaps.length === 0) {
      return consistent("evidence-gap", "No gap in the evidence",
        `${checked} source(s): both PD sides and every rank of each are present, no source was skipped or has unreadable lines, no rank went silent while others logged, and host clocks order causal pairs correctly.`, checked);
    }
    const byKind = new Map<CoverageGap["kind"], typeof gaps>();
    for (const g of gaps) byKind.set(g.gap.kind, [...(byKind.get(g.gap.kind) ?? []), g]);
    const findings: DraftFinding[] = [...byKind].map(([kind, list]) => {
      const blinds = [...new Set(list.flatMap((g) => g.gap.blinds ?? []))];
      const weakens = [...new Set(list.flatMap((g) => g.gap.weakens ?? []))].filter((r) => !blinds.includes(r));
      return {
        rule: "evidence-gap",
        severity: list.some((g) => g.severity === "medium") ? "medium" : "low",
        verdict: "violated",
        title: `${TITLES[kind]}: ${list.length}`,
        ranks: [...new Set(list.flatMap((g) => g.gap.ranks ?? []))],
        ...(list.find((g) => g.witness[0]) && { tsUs: list.find((g) => g.witness[0])!.witness[0]!.tsUs }),
        witness: list.flatMap((g) => g.witness).slice(0, 12),
        explanation:
          `Let the incident hold every rank's complete, ordered record. Then ${EXPECT[kind]}, but ${list.map((g) => g.gap.detail).join("; ")}.` +
          (blinds.length ? ` This blinds ${blinds.join(", ")}: their verdicts cannot rest on what is missing.` : "") +
          (weakens.length ? ` This weakens ${weakens.join(", ")}: their verdicts stand on the records as they are, which this leaves incomplete or loosely ordered.` : ""),
        falsify: "Collect the missing logs (all ranks, whole time range, probe records) and analyze again.",
        checked,
        count: list.length,
        facts: { gaps: list.map((g) => g.gap) },
      };
    });
    return { checked, findings };
  },
};

const TITLES: Record<CoverageGap["kind"], string> = {
  "missing-role": "A PD side with no source",
  "missing-ranks": "Ranks missing from the evidence",
  "skipped-source": "Inputs skipped or refused at ingest",
  "parse-errors": "Sources with unparsable lines",
  "truncated-source": "Sources cut mid-record",
  "time-gap": "Ranks whose periodic records stopped while others' went on",
  "clock-offset": "Host clocks far apart or unlinked",
  "causal-inversion": "Causal pairs inverted by the aligned clocks",
};

const EXPECT: Record<CoverageGap["kind"], string> = {
  "missing-role": "both sides of the PD pair (prefill and decode) have sources",
  "missing-ranks": "each role shows every TP rank of its stated size",
  "skipped-source": "every input of the bundle is ingested",
  "parse-errors": "every line of every source parses",
  "truncated-source": "every source ends with a complete record",
  "time-gap": "a rank writes its periodic records as long as the others do, unless it died",
  "clock-offset": "host clocks agree closely enough to order events across hosts",
  "causal-inversion": "a transfer's post precedes its notification after clock alignment",
};
