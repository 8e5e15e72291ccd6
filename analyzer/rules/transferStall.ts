// transfer-stall: the PD transfer path stopped making progress.
// - Frozen queue gauges: decode `#transfer-req` and prefill `#inflight-req`
//   are logged only with a batch line (sglang-pd-logs-and-protocol.md §2.1,
//   §2.2, §4: the gauges are set only when a batch line is logged). A wedge
//   shows as the same non-zero value over many lines, or as a last batch line
//   with a non-zero queue followed by silence while the incident goes on.
// - Rooms past a timeout: `timed out after {s}s in KVPoll.{state}` (§3.5) or a
//   probe `kv.timeout`.

import { LogKind } from "../../ingest/event.js";
import type { StoredEvent } from "../../ingest/store/queries.js";
import { KVPoll } from "../model/api.js";
import { attrNumber, attrString, isoTime, seconds, type Evidence } from "./evidence.js";
import { consistent, undetermined, type DraftFinding, type Rule, type RuleResult } from "./rule.js";

/** A gauge unchanged for at least this long (and this many lines) is frozen. */
const FREEZE_MIN_US = 60_000_000;
const FREEZE_MIN_LINES = 3;

const GAUGES: readonly { kind: string; field: string; queue: string }[] = [
  { kind: LogKind.decodeBatch, field: "#transfer-req", queue: "decode transfer queue" },
  { kind: LogKind.prefillBatch, field: "#inflight-req", queue: "prefill inflight queue" },
];

const FAILURE_KINDS = [LogKind.transferFailed, LogKind.handshakeFailed, LogKind.bootstrapFailed];

const FALSIFY =
  "Replay the same arrival and abort pattern with the transfer path instrumented (probe kv.post/kv.done); a live path drains the queue within the waiting timeout.";

export interface Plateau {
  rank: string;
  field: string;
  queue: string;
  value: number;
  first: StoredEvent;
  last: StoredEvent;
  lines: number;
  /** True when the gauge froze because batch lines stopped, not because they repeated. */
  silent: boolean;
  /** When the plateau's evidence ends: the last line, or the incident's end for a silent one. */
  untilUs: number;
}

export const transferStall: Rule = {
  id: "transfer-stall",
  needs: ["decode `Decode batch` lines with #transfer-req", "prefill `Prefill batch` lines with #inflight-req", "timeout failure lines (§3.5) or probe kv.timeout"],
  run({ evidence }): RuleResult {
    const batchLines = GAUGES.flatMap((g) => evidence.of(g.kind).filter((e) => attrNumber(e, g.field) !== undefined));
    const timeouts = timeoutEvents(evidence);
    if (batchLines.length === 0 && timeouts.length === 0 && !evidence.has("kv.poll")) {
      return undetermined("transfer-stall", "No queue gauges or timeouts: transfer progress cannot be judged",
        ["PD batch lines with #transfer-req / #inflight-req", "timeout lines or probe kv.timeout"],
        "The incident has no PD batch line carrying a queue gauge and no timeout record, so stalls cannot be seen.");
    }
    const endUs = evidence.endUs();
    const plateaus = findPlateaus(evidence, endUs);
    const findings: DraftFinding[] = [];
    if (plateaus.length > 0) findings.push(wedgeFinding(evidence, plateaus, endUs));
    if (timeouts.length > 0) findings.push(timeoutFinding(evidence, timeouts));
    const checked = batchLines.length + timeouts.length;
    if (findings.length > 0) return { checked, findings };
    return consistent("transfer-stall", "Transfer queues kept moving; no room timed out",
      `Checked ${batchLines.length} batch line(s) with queue gauges: none held a non-zero value unchanged for ${seconds(FREEZE_MIN_US)} or froze at the end; no timeout record.`, checked);
  },
};

export function findPlateaus(evidence: Evidence, endUs: number): Plateau[] {
  const out: Plateau[] = [];
  for (const g of GAUGES) {
    const byRank = new Map<string, StoredEvent[]>();
    for (const ev of evidence.of(g.kind)) {
      if (attrNumber(ev, g.field) === undefined) continue;
      const rank = evidence.rank(ev);
      let list = byRank.get(rank);
      if (!list) byRank.set(rank, (list = []));
      list.push(ev);
    }
    for (const [rank, lines] of byRank) {
      const p = longestPlateau(lines, g.field, endUs);
      if (p) out.push({ rank, field: g.field, queue: g.queue, ...p });
    }
  }
  return out.sort((a, b) => a.first.tsUs - b.first.tsUs);
}

function longestPlateau(lines: StoredEvent[], field: string, endUs: number): Omit<Plateau, "rank" | "field" | "queue"> | undefined {
  let best: Omit<Plateau, "rank" | "field" | "queue"> | undefined;
  let start = 0;
  for (let i = 1; i <= lines.length; i++) {
    const runEnds = i === lines.length || attrNumber(lines[i]!, field) !== attrNumber(lines[start]!, field);
    if (!runEnds) continue;
    const first = lines[start]!;
    const last = lines[i - 1]!;
    const value = attrNumber(first, field)!;
    const atEnd = i === lines.length;
    const silent = atEnd && endUs - last.tsUs >= FREEZE_MIN_US;
    const untilUs = silent ? endUs : last.tsUs;
    const repeated = i - start >= FREEZE_MIN_LINES && last.tsUs - first.tsUs >= FREEZE_MIN_US;
    if (value > 0 && (repeated || silent) && (!best || untilUs - first.tsUs > best.untilUs - best.first.tsUs)) {
      best = { value, first, last, lines: i - start, silent, untilUs };
    }
    start = i;
  }
  return best;
}

function wedgeFinding(evidence: Evidence, plateaus: Plateau[], endUs: number): DraftFinding {
  const began = plateaus[0]!;
  const lastEvent = evidence.event((evidence.db.prepare("SELECT seq FROM events WHERE ts_us = ? ORDER BY seq DESC LIMIT 1").get(endUs) as { seq: number }).seq)!;
  const witness: StoredEvent[] = [];
  for (const p of plateaus) witness.push(p.first, ...(p.last.seq !== p.first.seq ? [p.last] : []));
  if (plateaus.some((p) => p.silent)) witness.push(lastEvent);
  const describe = (p: Plateau): string =>
    p.silent
      ? `${p.rank}'s last batch line ${p.lines > 1 ? `(and the ${p.lines - 1} before it) ` : ""}reports ${p.field}: ${p.value} (${evidence.where(p.last)}), then no batch line for ${seconds(endUs - p.last.tsUs)} while the incident goes on to ${evidence.where(lastEvent)}`
      : `${p.rank} reports ${p.field}: ${p.value} on ${p.lines} consecutive batch lines over ${seconds(p.last.tsUs - p.first.tsUs)} (${evidence.where(p.first)} to ${evidence.where(p.last)})`;
  return {
    rule: "transfer-stall",
    severity: "high",
    verdict: "violated",
    title: `Transfer path wedged from ${isoTime(began.first.tsUs)}: ${plateaus.map((p) => `${p.field} frozen at ${p.value} on ${p.rank}`).join(", ")}`,
    ranks: [...new Set(plateaus.map((p) => p.rank))],
    tsUs: began.first.tsUs,
    witness,
    explanation:
      `Let the queue gauges be read from the batch lines (§2.1, §2.2). Then a working transfer path changes or drains them within seconds, ` +
      `but ${plateaus.map(describe).join("; and ")}. The wedge began at ${isoTime(began.first.tsUs)} at the latest (${evidence.where(began.first)}).`,
    falsify: FALSIFY,
    checked: plateaus.reduce((n, p) => n + p.lines, 0),
    facts: { wedgeStartUs: began.first.tsUs, plateaus: plateaus.map((p) => ({ rank: p.rank, field: p.field, value: p.value, silent: p.silent })) },
  };
}

export interface TimeoutRecord {
  ev: StoredEvent;
  room: string | undefined;
  state: string;
  afterS: number | undefined;
}

/** Rooms that hit a timeout, once per (room, state), from log lines and probe kv.timeout. */
export function timeoutEvents(evidence: Evidence): TimeoutRecord[] {
  const out: TimeoutRecord[] = [];
  const seen = new Set<string>();
  const add = (ev: StoredEvent, state: string, afterS: number | undefined): void => {
    const key = `${ev.room ?? ev.seq}/${state}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ ev, room: ev.room ?? undefined, state, afterS });
  };
  for (const ev of evidence.ofKinds(...FAILURE_KINDS, "kv.timeout")) {
    if (ev.kind === "kv.timeout") add(ev, attrString(ev, "state") ?? pollName(ev.state), attrNumber(ev, "after_s"));
    else if (attrString(ev, "reasonKind") === "timeout") add(ev, attrString(ev, "timeoutState") ?? "unknown", attrNumber(ev, "timeoutS"));
  }
  return out;
}

/**
 * Requests aborted or timed out on the PD path: each made decode release its
 * pages before the transfer was known to be done (§8 abort, §5.2 timeout).
 */
export function earlyReleases(evidence: Evidence): number {
  const rooms = new Set(timeoutEvents(evidence).flatMap((t) => (t.room ? [t.room] : [])));
  const aborted = (ev: StoredEvent): boolean => {
    if (ev.kind === "req.abort") return true;
    if (ev.kind === LogKind.abortSent) return ev.attrs?.failed !== true;
    return attrString(ev, "reasonKind") === "abort";
  };
  for (const ev of evidence.ofKinds("req.abort", LogKind.abortSent, ...FAILURE_KINDS)) if (ev.room && aborted(ev)) rooms.add(ev.room);
  const byRid = new Set(evidence.of(LogKind.abortRequest).flatMap((e) => (e.rid ? [e.rid] : [])));
  return rooms.size + byRid.size;
}

/** KVPoll's name for a stored state (sglang-pd-logs-and-protocol.md §5). */
function pollName(state: number | null): string {
  const name = state === null ? undefined : (Object.entries(KVPoll) as [string, number][]).find(([, v]) => v === state)?.[0];
  return name ?? "unknown";
}

function timeoutFinding(evidence: Evidence, timeouts: TimeoutRecord[]): DraftFinding {
  const first = timeouts[0]!;
  const byState = new Map<string, number>();
  for (const t of timeouts) byState.set(t.state, (byState.get(t.state) ?? 0) + 1);
  const states = [...byState].map(([s, n]) => `${n} in KVPoll.${s}`).join(", ");
  const rooms = [...new Set(timeouts.flatMap((t) => (t.room ? [t.room] : [])))];
  const start = first.room ? roomStart(evidence, first.room, first.ev.seq) : undefined;
  return {
    rule: "transfer-stall",
    severity: rooms.length >= 3 ? "high" : "medium",
    verdict: "violated",
    title: `${rooms.length} room(s) timed out (${states})`,
    ...(first.room && { room: first.room }),
    ranks: [...new Set(timeouts.map((t) => evidence.rank(t.ev)))].slice(0, 16),
    tsUs: first.ev.tsUs,
    witness: start ? [start, first.ev] : [first.ev],
    explanation:
      `Let room ${first.room ?? "?"} ${start ? `start its transfer at ${evidence.where(start)}` : "enter the PD transfer path"}. ` +
      `Then it must reach Success or Failed before the ${first.afterS ?? "configured"} s limit of KVPoll.${first.state} (§5.2, §10), ` +
      `but it timed out there (${evidence.where(first.ev)}); ${rooms.length - 1} more room(s) did the same (${states}).`,
    falsify: FALSIFY,
    checked: timeouts.length,
    facts: { rooms, states: Object.fromEntries(byState), firstTimeoutUs: first.ev.tsUs },
  };
}

function roomStart(evidence: Evidence, room: string, beforeSeq: number): StoredEvent | undefined {
  const row = evidence.db.prepare("SELECT seq FROM events WHERE room = ? AND seq < ? ORDER BY seq LIMIT 1").get(room, beforeSeq) as { seq: number } | undefined;
  return row ? evidence.event(row.seq) : undefined;
}
