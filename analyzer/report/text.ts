// The terminal report: suspects first, then violated findings grouped by rule
// with their witness lines, then what each rule could and could not check.

import { type AnalysisReport, type Finding } from "../rules/finding.js";
import { RULE_IDS } from "../../domain/vocabulary.js";
import { hostsPhrase, plural } from "./phrases.js";

/** Findings of one rule shown in full; the rest get one line each. */
export const FULL_PER_RULE = 5;

export function renderText(report: AnalysisReport): string {
  const out: string[] = [];
  const { incident, coverage } = report;
  out.push(`kvrewind analysis: ${incident.name}`);
  out.push(`  ${incident.start ?? "?"} → ${incident.end ?? "?"} · ${plural(coverage.sources, "source")} · ${plural(coverage.events, "event")} · ${hostsPhrase(incident.hosts)}`);
  const settings = Object.entries(incident.config).map(([k, v]) => `${k}=${String(v)}`);
  if (settings.length) out.push(`  settings: ${settings.join(" ")}`);
  const assumed = (incident.assumed ?? []).map((a) => `${a.setting}=${String(a.value)}`);
  if (assumed.length) out.push(...wrap(`assumed (no record, line or flag states them): ${assumed.join(" ")}`, "  "));
  out.push("");
  out.push("SUSPECTS");
  if (report.suspects.length === 0) out.push("  none: no finding points at a root cause");
  for (const s of report.suspects) {
    const ids = s.findings.length > 10 ? `${s.findings.slice(0, 10).join(", ")}, … ${s.findings.length - 10} more` : s.findings.join(", ");
    out.push(`  ${s.rank}. ${s.cause}  confidence ${s.confidence.toFixed(2)}  [${ids}]`);
    out.push(...wrap(s.summary, "     "));
    out.push(...wrap(`falsify: ${s.falsify}`, "     "));
  }
  out.push("");
  const violated = report.findings.filter((f) => f.verdict === "violated");
  out.push(`FINDINGS (${violated.length} violated)`);
  for (const rule of RULE_IDS) {
    const list = violated.filter((f) => f.rule === rule);
    if (list.length === 0) continue;
    out.push(`  ${rule}`);
    for (const f of list.slice(0, FULL_PER_RULE)) out.push(...findingLines(f));
    for (const f of list.slice(FULL_PER_RULE)) out.push(`    ${f.id} [${f.severity}] ${f.title}${f.witness[0] ? `  (${f.witness.at(-1)!.source}:${f.witness.at(-1)!.line})` : ""}`);
  }
  out.push("");
  out.push("CHECKED");
  for (const r of coverage.rules) {
    const detail = r.verdict === "undetermined" && r.missing.length ? `checked ${r.checked}; missing: ${r.missing.join("; ")}` : `checked ${r.checked}`;
    out.push(`  ${r.rule.padEnd(26)} ${r.verdict.padEnd(12)} ${detail}${r.assumed?.length ? `; rests on ${r.assumed.map((a) => a.split(" ")[0]).join(", ")}` : ""}`);
  }
  if (coverage.gaps.length) {
    out.push("");
    out.push("EVIDENCE GAPS");
    for (const g of coverage.gaps) {
      const blinds = g.blinds?.length ? ` [blinds ${g.blinds.join(", ")}]` : g.weakens?.length ? ` [weakens ${g.weakens.join(", ")}]` : g.explainedBy ? " [explained]" : "";
      out.push(...wrap(`${g.kind}: ${g.detail}${blinds}`, "  "));
    }
  }
  return out.join("\n") + "\n";
}

function findingLines(f: Finding): string[] {
  const lines = [`    ${f.id} [${f.severity}] ${f.title}`];
  const rooms = f.rooms && f.rooms.length > 1 ? `${f.rooms.length} rooms (${f.rooms.slice(0, 5).join(", ")}${f.rooms.length > 5 ? ", …" : ""})` : f.room && `room ${f.room}`;
  const where = [rooms, f.ranks.length && `ranks ${f.ranks.join(", ")}`, f.ts].filter(Boolean).join(" · ");
  if (where) lines.push(`       ${where}`);
  lines.push(...wrap(f.explanation, "       "));
  for (const a of f.assumptions ?? []) lines.push(...wrap(`assumes: ${a}`, "       "));
  for (const w of f.witness) {
    const [first, ...rest] = w.text.split("\n");
    lines.push(`       > ${w.source}:${w.line} #${w.seq}${w.timeless ? " (time unknown)" : w.tsInferred ? " (time inferred)" : ""}  ${first}`);
    for (const r of rest) lines.push(`       >   ${r}`);
  }
  if (f.falsify) lines.push(...wrap(`falsify: ${f.falsify}`, "       "));
  return lines;
}

/** Wraps prose at 110 columns under an indent; long tokens are never split. */
function wrap(text: string, indent: string, width = 110): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line && indent.length + line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(indent + line);
  return lines;
}
