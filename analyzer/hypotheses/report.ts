// Hypothesis verdicts as a person reads them: the text `kvrewind check`
// prints, the Markdown of its --markdown and of the post-mortem's
// "Hypotheses tested" ledger, the ledger of the text report, and the A/B
// comparison of two incidents.

import type { HypothesisVerdict, HypothesisWitness } from "./verdict.js";

const LEDGER_WORD: Readonly<Record<HypothesisVerdict["verdict"], string>> = {
  violated: "violated (the fault it guards against happened)",
  consistent: "holds (ruled out as a cause)",
  undetermined: "undetermined (evidence missing)",
};

export function renderVerdictsText(verdicts: readonly HypothesisVerdict[]): string {
  return verdicts.map(verdictText).join("\n");
}

function verdictText(v: HypothesisVerdict): string {
  const out = [`${v.name ?? "hypothesis"}${v.statement ? `: ${v.statement}` : ""}`, `  ${v.property}`];
  out.push(`  ${v.verdict.toUpperCase()} — ${counts(v)}`);
  if (v.verdict !== "violated") out.push(`  ${v.explanation}`);
  v.clauses.forEach((c, i) => {
    if (v.clauses.length > 1 || c.uncorrelated || c.blind) out.push(`  clause ${i + 1} (${c.text}): ${c.blind ? "not checked (no such event)" : `${c.violations} violation(s)`}${c.uncorrelated ? `, ${c.uncorrelated} instance(s) without the fields it correlates by` : ""}`);
  });
  for (const m of v.missing) out.push(`  missing: ${m}`);
  for (const w of v.witnesses) out.push(...witnessText(w));
  if (v.violated > v.witnesses.length) out.push(`  … ${v.violated - v.witnesses.length} more violated instance(s)`);
  return `${out.join("\n")}\n`;
}

function witnessText(w: HypothesisWitness): string[] {
  const line = (x: HypothesisWitness["subject"]) => `${x.source}:${x.line}  ${firstLine(x.text)}`;
  return [`  - ${w.why}`, `      ${line(w.subject)}`, w.other ? `      ${line(w.other)}` : "      (no such event)"];
}

function counts(v: HypothesisVerdict): string {
  const rate = v.rate === null ? "" : ` (${(v.rate * 100).toFixed(1)}%)`;
  return `${v.violated} of ${v.checked} instance(s) violated${rate}${v.instances > v.checked ? `, ${v.instances - v.checked} not correlatable` : ""}`;
}

/** Confirmed first, then ruled out, then untested: the order a post-mortem's list is read in. */
const LEDGER_ORDER: readonly HypothesisVerdict["verdict"][] = ["violated", "consistent", "undetermined"];

export function renderVerdictsMarkdown(verdicts: readonly HypothesisVerdict[], heading = "## Hypotheses tested"): string {
  const sorted = [...verdicts].sort((a, b) => LEDGER_ORDER.indexOf(a.verdict) - LEDGER_ORDER.indexOf(b.verdict));
  const out = [heading, ""];
  out.push("| hypothesis | verdict | checked | violated | rate |", "|---|---|---|---|---|");
  for (const v of sorted) {
    const verdict = v.verdict === "undetermined" ? `${LEDGER_WORD.undetermined}: ${v.missing.join("; ")}` : LEDGER_WORD[v.verdict];
    out.push(`| ${cell(v.name ?? v.property)}${v.statement ? ` — ${cell(v.statement)}` : ""} | ${cell(verdict)} | ${v.checked} | ${v.violated} | ${v.rate === null ? "—" : `${(v.rate * 100).toFixed(1)}%`} |`);
  }
  out.push("");
  for (const v of sorted.filter((x) => x.verdict === "violated")) {
    out.push(`### ${v.name ?? "hypothesis"}: violated`, "", `\`${cell(v.property)}\``, "", v.explanation, "");
    for (const w of v.witnesses.slice(0, 5)) {
      out.push(`- ${w.why}: \`${w.subject.source}:${w.subject.line}\` \`${cell(firstLine(w.subject.text))}\`${w.other ? ` ↔ \`${w.other.source}:${w.other.line}\` \`${cell(firstLine(w.other.text))}\`` : ""}`);
    }
    out.push("");
  }
  return out.join("\n");
}

/** The ledger in the text report: one line per hypothesis, confirmed, ruled out, then untested (with what was missing). */
export function renderLedgerText(verdicts: readonly HypothesisVerdict[]): string {
  const sorted = [...verdicts].sort((a, b) => LEDGER_ORDER.indexOf(a.verdict) - LEDGER_ORDER.indexOf(b.verdict));
  const width = Math.max(0, ...sorted.map((v) => (v.name ?? "hypothesis").length));
  const out = [`HYPOTHESES TESTED (${sorted.filter((v) => v.verdict === "violated").length} violated, ${sorted.filter((v) => v.verdict === "consistent").length} ruled out, ${sorted.filter((v) => v.verdict === "undetermined").length} undetermined)`];
  for (const v of sorted) {
    const detail = v.verdict === "undetermined" ? `missing: ${v.missing.join("; ")}` : counts(v);
    out.push(`  ${(v.name ?? "hypothesis").padEnd(width)} ${v.verdict.padEnd(12)} ${detail}`);
    const w = v.witnesses[0];
    if (v.verdict === "violated" && w) out.push(`  ${"".padEnd(width)} ${"".padEnd(12)} e.g. ${w.why}: ${w.subject.source}:${w.subject.line}${w.other ? ` ↔ ${w.other.source}:${w.other.line}` : ""}`);
  }
  return `${out.join("\n")}\n`;
}

/** One hypothesis over two incidents: instances and violation rate in each. */
export interface AbRow {
  hypothesis: string;
  a: HypothesisVerdict;
  b: HypothesisVerdict;
}

export function renderAbText(names: [string, string], rows: readonly AbRow[]): string {
  const out: string[] = [];
  for (const r of rows) {
    out.push(`${r.hypothesis}: ${r.a.property}`);
    for (const [name, v] of [[names[0], r.a], [names[1], r.b]] as const) out.push(`  ${name}: ${v.verdict}, ${counts(v)}`);
  }
  return `${out.join("\n")}\n`;
}

export function renderAbMarkdown(names: [string, string], rows: readonly AbRow[]): string {
  const out = ["## Hypotheses A/B", "", `| hypothesis | ${cell(names[0])} | ${cell(names[1])} |`, "|---|---|---|"];
  const side = (v: HypothesisVerdict) => `${v.verdict}: ${v.violated}/${v.checked}${v.rate === null ? "" : ` (${(v.rate * 100).toFixed(1)}%)`}`;
  for (const r of rows) out.push(`| ${cell(r.hypothesis)} | ${side(r.a)} | ${side(r.b)} |`);
  return `${out.join("\n")}\n`;
}

function firstLine(text: string): string {
  return text.split("\n")[0]!;
}

function cell(s: string): string {
  return s.replace(/\|/g, "\\|").replace(/`/g, "'");
}
