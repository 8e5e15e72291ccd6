// Plain-text renderings for `kvrewind replay`: the state at a point, the
// profile and its reasons, and a full replay's summary.

import type { ModelStateView } from "../../analyzer/model/api.js";
import type { EventRef } from "../../analyzer/replay/eventRefs.js";
import type { ProfileChoice } from "../../analyzer/replay/profileSelection.js";
import type { ReplaySummary } from "../../analyzer/replay/replay.js";
import type { Coverage } from "../../analyzer/rules/finding.js";
import { pollName } from "../../analyzer/replay/stateJson.js";

/** tsUs as ISO-8601 UTC with microseconds. */
export function isoUs(tsUs: number): string {
  const ms = Math.floor(tsUs / 1000);
  const us = String(tsUs - ms * 1000).padStart(3, "0");
  return new Date(ms).toISOString().replace("Z", `${us}Z`);
}

function where(seq: number | null, refs: ReadonlyMap<number, EventRef>): string {
  if (seq === null || seq < 0) return "";
  const r = refs.get(seq);
  return r ? `seq ${seq} ${r.source}:${r.line}` : `seq ${seq}`;
}

export function profileText(choice: ProfileChoice): string[] {
  const p = choice.profile;
  const out = [
    `profile: ${p.backend} v${p.version}, index-K ${p.indexKDtype}, HiCache ${p.hicache ? "on" : "off"}, overlap ${p.overlap ? "on" : "off"}, ` +
      `${p.transferQueues} transfer queues (${p.queueRouting}), ABORT ${p.abortHandling}`,
  ];
  const width = Math.max(...choice.reasons.map((r) => r.field.length));
  for (const r of choice.reasons) {
    const ev = r.evidence[0];
    const cite = ev ? `  [seq ${ev.seq} ${ev.source}:${ev.line}${r.evidence.length > 1 ? ` +${r.evidence.length - 1}` : ""}]` : "";
    out.push(`  ${r.field.padEnd(width)} = ${String(r.value).padEnd(14)} ${r.origin.padEnd(7)} ${r.why}${cite}`);
  }
  for (const c of choice.conflicts) out.push(`  conflict: ${c}`);
  return out;
}

export function stateText(view: ModelStateView, at: EventRef | null, refs: ReadonlyMap<number, EventRef>, choice: ProfileChoice, notes: string[] = []): string {
  const out: string[] = [];
  if (at) {
    out.push(`state after seq ${at.seq} at ${isoUs(at.tsUs)}  ${at.source}:${at.line}`);
    out.push(`  ${at.text.split("\n")[0]}`);
  } else {
    out.push("state before the first event");
  }
  for (const n of notes) out.push(`note: ${n}`);
  out.push("", ...profileText(choice), "");
  const inferred = view.rooms.filter((r) => r.inferred).length;
  out.push(`rooms (${view.rooms.length}${inferred ? `, ${inferred} inferred from later lines` : ""})`);
  for (const r of view.rooms) {
    const p = r.prefill;
    const d = r.decode;
    out.push(`  ${r.room}${r.inferred ? `  INFERRED since ${isoUs(r.inferred.since)} from ${where(r.inferred.seq, refs)}: ${r.inferred.reason}` : ""}`);
    for (const a of r.assumed ?? []) out.push(`    assumed: ${a}`);
    out.push(
      `    prefill ${pollName(p.state) ?? "-"}  ranks ${p.ranks.join(",") || "-"}  chunks posted ${p.chunksPosted} done ${p.chunksDone}` +
        `  queue ${p.queue ?? "-"}  ${where(p.changedAt, refs)}`,
    );
    out.push(
      `    decode  ${pollName(d.state) ?? "-"}  ranks ${d.ranks.join(",") || "-"}  chunks notified ${d.chunksNotified}` +
        `  aux ${d.auxReceived ? "yes" : "no"}  pages ${d.pages.map(([a, b]) => `[${a},${b})`).join(" ") || "-"}  ${where(d.changedAt, refs)}`,
    );
  }
  out.push(`pages (${view.pages.length})`);
  for (const g of view.pages) {
    const w = g.lastWriter ? `last write room ${g.lastWriter.room} chunk ${g.lastWriter.chunk ?? "-"} epoch ${g.lastWriter.epoch} (${where(g.lastWriter.seq, refs)})` : "no write";
    out.push(
      `  ${g.rank} ${g.buffer} layer ${g.layer < 0 ? "all" : g.layer} page ${g.page}  owner ${g.ownerRoom ?? "free"}  ${w}` +
        `  ${g.landed ? "landed" : "IN FLIGHT"}  ${where(g.changedAt, refs)}`,
    );
  }
  out.push(`transfer queues (${view.queues.length})`);
  for (const q of view.queues) {
    out.push(q.gauge ? `  ${q.rank} ${q.gauge}: ${q.depth} room(s), INFERRED from ${where(q.changedAt, refs)}` : `  ${q.rank} queue ${q.queue}: depth ${q.depth}  ${where(q.changedAt, refs)}`);
  }
  out.push(`bootstrap threads (${view.bootstrapThreads.length})`);
  for (const b of view.bootstrapThreads) {
    out.push(`  ${b.rank}: ${b.alive ? "alive" : "DEAD"}${b.error ? ` (${b.error})` : ""}  ${where(b.changedAt, refs)}`);
  }
  out.push(`hicache slots (${view.hicacheSlots.length})`);
  for (const h of view.hicacheSlots) {
    out.push(`  ${h.rank} slot ${h.slot}: ${h.layersDone}/${h.layers} layers${h.consumer ? ", consumer" : ""}  ${where(h.changedAt, refs)}`);
  }
  out.push(`collectives (${view.collectives.length})`);
  for (const c of view.collectives) {
    out.push(`  ${c.rank} ${c.group} #${c.seq} ${c.op} at ${c.site} ${c.inside ? "INSIDE" : "done"}  ${where(c.changedAt, refs)}`);
  }
  return out.map((l) => l.trimEnd()).join("\n") + "\n";
}

export function summaryText(s: ReplaySummary, rules: Coverage["rules"]): string {
  const out = [
    `replayed ${s.events} events (seq ${s.firstSeq ?? "-"}..${s.lastSeq ?? "-"})`,
    "",
    ...profileText(s.choice),
    "",
    `violations (${s.violations.length})`,
  ];
  for (const v of s.violations) {
    out.push(`  ${v.check}  seq ${v.seq}${v.room ? `  room ${v.room}` : ""}${v.rank ? `  ${v.rank}` : ""}: ${v.message}`);
    for (const w of v.witness) out.push(`    seq ${w.seq} ${w.source}:${w.line}  ${w.text.split("\n")[0]}`);
  }
  out.push("", "coverage (the rules' verdicts on this replay, as `analyze` reports them)");
  for (const r of rules) {
    const detail = r.verdict === "undetermined" && r.missing.length ? `  missing: ${r.missing.join("; ")}` : "";
    out.push(`  ${r.rule.padEnd(26)} ${r.verdict.padEnd(12)} checked ${String(r.checked).padStart(8)}${detail}`);
  }
  return out.join("\n") + "\n";
}
