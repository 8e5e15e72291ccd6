// The post-mortem to paste into a ticket: summary, a timeline of the key
// events (the witness lines of the violated findings, in global order),
// suspects with their evidence and the experiment that would refute them,
// the findings with their proofs, and what the evidence covered.

import type { IncidentDb } from "../../store/db.js";
import { eventBySeq } from "../../store/read/events.js";
import { Evidence, isoTime } from "../rules/evidence.js";
import { type AnalysisReport, type Finding } from "../rules/finding.js";
import { RULE_IDS } from "../../domain/vocabulary.js";
import { FULL_PER_RULE } from "./text.js";
import { hostsPhrase, plural } from "./phrases.js";

export interface TimelineEntry {
  seq: number;
  ts: string;
  rank: string;
  where: string;
  text: string;
  findings: string[];
}

const TIMELINE_MAX = 30;

/** Witness lines taken from one finding for the timeline. */
const TIMELINE_PER_FINDING = 4;

/**
 * The key events: witness lines of the violated findings, those behind the
 * top suspect first and then the most severe, at most TIMELINE_MAX, shown in
 * global order.
 */
export function buildTimeline(db: IncidentDb, report: AnalysisReport): TimelineEntry[] {
  const evidence = new Evidence(db);
  const top = new Set(report.suspects[0]?.findings ?? []);
  const ordered = report.findings
    .filter((f) => f.verdict === "violated" && f.rule !== "evidence-gap")
    .sort((a, b) => Number(top.has(b.id)) - Number(top.has(a.id)));
  const bySeq = new Map<number, string[]>();
  for (const f of ordered) {
    for (const w of f.witness.slice(0, TIMELINE_PER_FINDING)) {
      if (!bySeq.has(w.seq) && bySeq.size >= TIMELINE_MAX) continue;
      bySeq.set(w.seq, [...(bySeq.get(w.seq) ?? []), f.id]);
    }
  }
  return [...bySeq.keys()].sort((a, b) => a - b).flatMap((seq) => {
    const ev = eventBySeq(db, seq);
    if (!ev) return [];
    return [{ seq, ts: ev.timeless ? "time unknown" : `${isoTime(ev.tsUs)}${ev.tsInferred ? " (inferred)" : ""}`, rank: evidence.rank(ev), where: evidence.where(ev), text: ev.text.split("\n")[0]!, findings: bySeq.get(seq)! }];
  });
}

export function renderMarkdown(report: AnalysisReport, timeline: TimelineEntry[]): string {
  const { incident, coverage } = report;
  const top = report.suspects[0];
  const violated = report.findings.filter((f) => f.verdict === "violated");
  const out: string[] = [];
  out.push(`# Post-mortem: ${incident.name}${top ? ` — ${top.cause}` : ""}`, "");
  out.push("## Summary", "");
  out.push(summary(report), "");
  out.push(`- Window: ${incident.start ?? "?"} → ${incident.end ?? "?"}`);
  out.push(`- Evidence: ${plural(coverage.sources, "source")}, ${plural(coverage.events, "event")}, ${plural(coverage.ranks.length, "rank")}, ${hostsPhrase(incident.hosts)}`);
  const settings = Object.entries(incident.config).map(([k, v]) => `\`${k}=${String(v)}\``);
  if (settings.length) out.push(`- Settings: ${settings.join(", ")}`);
  const assumed = (incident.assumed ?? []).map((a) => `\`${a.setting}=${String(a.value)}\``);
  if (assumed.length) out.push(`- Assumed (no record, line or flag states them): ${assumed.join(", ")}`);
  out.push("");
  if (timeline.length) {
    out.push("## Timeline", "");
    out.push("| time (UTC) | rank | line | event | findings |", "|---|---|---|---|---|");
    for (const t of timeline) out.push(`| ${t.ts} | ${cell(t.rank)} | ${cell(t.where)} | \`${cell(t.text).replace(/`/g, "'")}\` | ${t.findings.join(", ")} |`);
    out.push("");
  }
  out.push("## Suspects", "");
  if (report.suspects.length === 0) out.push("No finding points at a root cause.", "");
  for (const s of report.suspects) {
    out.push(`### ${s.rank}. ${s.cause} (confidence ${s.confidence.toFixed(2)})`, "");
    out.push(s.summary, "");
    for (const id of s.findings) {
      const f = report.findings.find((x) => x.id === id);
      if (f) out.push(`- ${f.id}: ${f.title}`);
    }
    out.push("", `**Falsify:** ${s.falsify}`, "");
  }
  out.push("## Findings", "");
  if (violated.length === 0) out.push("No rule was violated.", "");
  for (const rule of RULE_IDS) {
    const list = violated.filter((f) => f.rule === rule);
    for (const f of list.slice(0, FULL_PER_RULE)) out.push(...findingSection(f));
    if (list.length > FULL_PER_RULE) {
      out.push(`${list.length - FULL_PER_RULE} more \`${rule}\` finding(s):`, "");
      for (const f of list.slice(FULL_PER_RULE)) out.push(`- ${f.id} (${f.severity}): ${f.title}`);
      out.push("");
    }
  }
  out.push("## Coverage", "");
  out.push("| rule | verdict | checked | missing evidence | assumed settings |", "|---|---|---|---|---|");
  for (const r of coverage.rules) out.push(`| ${r.rule} | ${r.verdict} | ${r.checked} | ${cell(r.missing.join("; "))} | ${cell((r.assumed ?? []).map((a) => a.split(" ")[0]).join(", "))} |`);
  out.push("");
  if (coverage.gaps.length) {
    out.push("Gaps in the evidence:", "");
    const rules = (verb: string, ids: readonly string[] | undefined) => (ids?.length ? ` (${verb} ${ids.map((b) => `\`${b}\``).join(", ")})` : "");
    for (const g of coverage.gaps) out.push(`- ${g.kind}: ${g.detail}${rules("blinds", g.blinds)}${rules("weakens", g.weakens)}`);
    out.push("");
  }
  return out.join("\n");
}

function summary(report: AnalysisReport): string {
  const top = report.suspects[0];
  const violated = report.findings.filter((f) => f.verdict === "violated");
  const worst = violated.filter((f) => f.severity === "critical" || f.severity === "high");
  if (!top) {
    return worst.length
      ? `${worst.length} critical/high finding(s) but no ranked root cause: ${worst.map((f) => f.title).join("; ")}.`
      : "No critical or high finding: the evidence shows no ordering violation or wedge.";
  }
  const lead = report.findings.find((f) => f.id === top.findings[0]);
  return (
    `Most likely cause: **${top.cause}** (confidence ${top.confidence.toFixed(2)}): ${top.summary}.` +
    (lead ? ` The strongest evidence is ${lead.id}, ${lead.title}.` : "") +
    (report.suspects.length > 1 ? ` Also considered: ${report.suspects.slice(1).map((s) => `${s.cause} (${s.confidence.toFixed(2)})`).join(", ")}.` : "")
  );
}

function findingSection(f: Finding): string[] {
  const out = [`### ${f.id} — ${f.title}`, ""];
  const rooms = f.rooms && f.rooms.length > 1 ? `${f.rooms.length} rooms: ${f.rooms.join(", ")}` : f.room && `room ${f.room}`;
  const meta = [`rule \`${f.rule}\``, `severity ${f.severity}`, rooms, f.ranks.length && `ranks ${f.ranks.join(", ")}`, f.ts]
    .filter(Boolean)
    .join(" · ");
  out.push(meta, "", f.explanation, "");
  if (f.assumptions?.length) out.push(...f.assumptions.map((a) => `- Assumes: ${a}`), "");
  if (f.witness.length) {
    const body = f.witness.map((w) => `${w.source}:${w.line}  ${w.text}`).join("\n");
    const fence = body.includes("```") ? "~~~~" : "```";
    out.push(`${fence}text`, body, fence, "");
  }
  if (f.falsify) out.push(`**Falsify:** ${f.falsify}`, "");
  return out;
}

function cell(s: string): string {
  return s.replace(/\|/g, "\\|").replace(/\n/g, " ");
}
