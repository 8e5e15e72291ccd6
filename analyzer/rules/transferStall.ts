// transfer-stall: the PD transfer path stopped making progress.
// - Frozen queue gauges: decode `#transfer-req` and prefill `#inflight-req`
//   are logged only with a batch line (docs/protocol.md §2.1,
//   §2.2, §4: the gauges are set only when a batch line is logged). A wedge
//   shows as the same non-zero value over many lines, or as a last batch line
//   with a non-zero queue followed by silence while the incident goes on.
// - Rooms past a timeout: `timed out after {s}s in KVPoll.{state}` (§3.5) or a
//   probe `kv.timeout`.

import { LogKind } from "../../domain/kinds.js";
import { lastSeqAt } from "../../store/read/seqs.js";
import type { StoredEvent } from "../../store/read/events.js";
import { batchGauge, decodeAs } from "../events/decode.js";
import { isoTime, seconds, type Evidence } from "./evidence.js";
import { coverageOf } from "./replayEvidence.js";
import { roomTimeoutFindings, timeoutEvents } from "./roomTimeouts.js";
import { consistent, undetermined, type DraftFinding, type Rule, type RuleResult } from "./rule.js";

/** A gauge unchanged for at least this long (and this many lines) is frozen. */
const FREEZE_MIN_US = 60_000_000;
const FREEZE_MIN_LINES = 3;
/** Queues of fewer rooms are not judged frozen (see findPlateaus). */
const LARGE_QUEUE = 10;

const GAUGES: readonly { kind: string; field: string; queue: string }[] = [
  { kind: LogKind.decodeBatch, field: "#transfer-req", queue: "decode transfer queue" },
  { kind: LogKind.prefillBatch, field: "#inflight-req", queue: "prefill inflight queue" },
];

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
  /** Seen on several lines over the freeze window (not only inferred from silence). */
  repeated: boolean;
  /** When the plateau's evidence ends: the last line, or the incident's end for a silent one. */
  untilUs: number;
}

export const transferStall: Rule = {
  id: "transfer-stall",
  needs: ["decode `Decode batch` lines with #transfer-req", "prefill `Prefill batch` lines with #inflight-req", "timeout failure lines (docs/protocol.md §3.5) or probe kv.timeout"],
  run({ evidence, replay }): RuleResult {
    const batchLines = GAUGES.flatMap((g) => evidence.of(g.kind).filter((e) => gauge(e, g.field) !== undefined));
    const timeouts = timeoutEvents(evidence);
    const modelRooms = coverageOf(replay, "transfer-stall")?.checked ?? 0;
    if (batchLines.length === 0 && timeouts.length === 0 && modelRooms === 0) {
      return undetermined("transfer-stall", "No queue gauges or timeouts: transfer progress cannot be judged",
        ["PD batch lines with #transfer-req / #inflight-req", "timeout lines or probe kv.timeout", "per-room transfer records for the model (kv.meta)"],
        "The incident has no PD batch line carrying a queue gauge, no timeout record and no per-room transfer record, so stalls cannot be seen.");
    }
    const endUs = evidence.endUs();
    const plateaus = findPlateaus(evidence, endUs);
    const findings: DraftFinding[] = [];
    if (plateaus.length > 0) findings.push(wedgeFinding(evidence, plateaus, endUs));
    findings.push(...roomTimeoutFindings(evidence, timeouts, replay));
    const checked = batchLines.length + timeouts.length + modelRooms;
    if (findings.length > 0) return { checked, findings };
    return consistent("transfer-stall", "Transfer queues kept moving; no room timed out",
      `Checked ${batchLines.length} batch line(s) with queue gauges: no queue of ${LARGE_QUEUE} or more held its level for ${seconds(FREEZE_MIN_US)}; ` +
        `no timeout record${modelRooms ? `; the model followed ${modelRooms} room(s) through the transfer without a stall` : ""}.`, checked);
  },
};

/**
 * Frozen queue gauges per rank: a queue of LARGE_QUEUE rooms or more that
 * holds its level for FREEZE_MIN_US. Small queues are left out: under a
 * steady trickle one room in flight at every batch line is normal.
 */
/** A batch line's gauge, decoded. */
function gauge(ev: StoredEvent, field: string): number | undefined {
  const line = decodeAs(ev, LogKind.prefillBatch, LogKind.decodeBatch);
  return line === undefined ? undefined : batchGauge(line, field);
}

export function findPlateaus(evidence: Evidence, endUs: number): Plateau[] {
  const out: Plateau[] = [];
  for (const g of GAUGES) {
    const byRank = new Map<string, StoredEvent[]>();
    for (const ev of evidence.of(g.kind)) {
      if (gauge(ev, g.field) === undefined) continue;
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
  // A last line followed by silence also ends every healthy run that goes
  // idle: it counts only beside a gauge seen repeating while the wedge lasted.
  return out.some((p) => p.repeated) ? out.sort((a, b) => a.first.tsUs - b.first.tsUs) : [];
}

/**
 * Whether a gauge reading continues a frozen run: within 5% of the value the
 * run began with ("58–60": a wedged queue where a few rooms come and go at
 * the edge; a busy queue moves by more).
 */
function sameLevel(runValue: number, v: number): boolean {
  return Math.abs(v - runValue) <= Math.floor(runValue * 0.05);
}

function longestPlateau(lines: StoredEvent[], field: string, endUs: number): Omit<Plateau, "rank" | "field" | "queue"> | undefined {
  let best: Omit<Plateau, "rank" | "field" | "queue"> | undefined;
  let start = 0;
  for (let i = 1; i <= lines.length; i++) {
    const runEnds = i === lines.length || !sameLevel(gauge(lines[start]!, field)!, gauge(lines[i]!, field)!);
    if (!runEnds) continue;
    const first = lines[start]!;
    const last = lines[i - 1]!;
    const value = gauge(first, field)!;
    const atEnd = i === lines.length;
    const silent = atEnd && endUs - last.tsUs >= FREEZE_MIN_US;
    const untilUs = silent ? endUs : last.tsUs;
    const repeated = i - start >= FREEZE_MIN_LINES && last.tsUs - first.tsUs >= FREEZE_MIN_US;
    if (value >= LARGE_QUEUE && (repeated || silent) && (!best || untilUs - first.tsUs > best.untilUs - best.first.tsUs)) {
      best = { value, first, last, lines: i - start, silent, repeated, untilUs };
    }
    start = i;
  }
  return best;
}

function wedgeFinding(evidence: Evidence, plateaus: Plateau[], endUs: number): DraftFinding {
  const began = plateaus[0]!;
  const lastEvent = evidence.event(lastSeqAt(evidence.db, endUs)!)!;
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
      `Let the queue gauges be read from the batch lines (docs/protocol.md §2.1, §2.2). Then a working transfer path changes or drains them within seconds, ` +
      `but ${plateaus.map(describe).join("; and ")}. The wedge began at ${isoTime(began.first.tsUs)} at the latest (${evidence.where(began.first)}).`,
    falsify: FALSIFY,
    checked: plateaus.reduce((n, p) => n + p.lines, 0),
    facts: { wedgeStartUs: began.first.tsUs, plateaus: plateaus.map((p) => ({ rank: p.rank, field: p.field, value: p.value, silent: p.silent })) },
  };
}

