// transfer-stall: the PD transfer path stopped making progress.
// - Frozen queue gauges: decode `#transfer-req` and prefill `#inflight-req`
//   are logged only with a batch line (docs/protocol.md §2.1,
//   §2.2, §4: the gauges are set only when a batch line is logged). A wedge
//   shows as the same non-zero value over many lines, or as a last batch line
//   with a non-zero queue followed by silence while the incident goes on.
// - Rooms past a timeout: `timed out after {s}s in KVPoll.{state}` (§3.5) or a
//   probe `kv.timeout`.
// - The operator's telemetry (telemetryWedge.ts): Prometheus queue series
//   frozen above zero while work arrived, rooms whose traces stopped.

import { readOnce, type BlockReader, type Reading } from "../../store/blocks/pass.js";
import { lastSeqAt } from "../../store/read/seqs.js";
import type { StoredEvent } from "../../store/read/events.js";
import { GAUGES, gauge } from "./queueGauges.js";
import { isoTime, seconds, uniqueEvents, type Evidence } from "./evidence.js";
import { coverageOf } from "./replayEvidence.js";
import { roomTimeoutFindings, timeoutEvents } from "./roomTimeouts.js";
import { consistent, undetermined, type DraftFinding, type Rule, type RuleResult } from "./rule.js";
import { describeFrozen, describeStopped, describeUnfinished, isEmpty, telemetryStartUs, telemetryWedge, telemetryWitness, type TelemetryWedge } from "./telemetryWedge.js";
import { seriesOf } from "../telemetry/series.js";
import { tracedRequests } from "../telemetry/spans.js";

/** A gauge unchanged for at least this long (and this many lines) is frozen. */
const FREEZE_MIN_US = 60_000_000;
const FREEZE_MIN_LINES = 3;
/** Queues of fewer rooms are not judged frozen (see findPlateaus). */
const LARGE_QUEUE = 10;

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

export const transferStall: Rule<GaugeLines> = {
  id: "transfer-stall",
  needs: [
    "decode `Decode batch` lines with #transfer-req", "prefill `Prefill batch` lines with #inflight-req", "timeout failure lines (docs/protocol.md §3.5) or probe kv.timeout",
    "SGLang's PD queue series (Prometheus) or its request traces (OpenTelemetry)",
  ],
  reading: gaugeLinesReading,
  run({ evidence, replay }, lines): RuleResult {
    const batchLines = lines.reduce((n, g) => n + [...g.byRank.values()].reduce((m, l) => m + l.seq.length, 0), 0);
    const timeouts = timeoutEvents(evidence);
    const modelRooms = coverageOf(replay, "transfer-stall")?.checked ?? 0;
    const queueSamples = seriesOf(evidence, "transfer-queue").reduce((n, s) => n + s.samples.length, 0);
    const traced = tracedRequests(evidence).length;
    if (batchLines === 0 && timeouts.length === 0 && modelRooms === 0 && queueSamples === 0 && traced === 0) {
      return undetermined("transfer-stall", "No queue gauges, timeouts or traces: transfer progress cannot be judged",
        ["PD batch lines with #transfer-req / #inflight-req", "timeout lines or probe kv.timeout", "per-room transfer records for the model (kv.meta)", "SGLang's PD queue series or request traces"],
        "The incident has no PD batch line carrying a queue gauge, no timeout record, no per-room transfer record, no PD queue series and no traced room, so stalls cannot be seen.");
    }
    const endUs = evidence.endUs();
    const plateaus = findPlateaus(evidence, endUs, lines);
    const telemetry = telemetryWedge(evidence);
    const findings: DraftFinding[] = [];
    if (plateaus.length > 0 || !isEmpty(telemetry)) findings.push(wedgeFinding(evidence, plateaus, telemetry, endUs));
    findings.push(...roomTimeoutFindings(evidence, timeouts, replay));
    const checked = batchLines + timeouts.length + modelRooms + queueSamples + traced;
    if (findings.length > 0) return { checked, findings };
    return consistent("transfer-stall", "Transfer queues kept moving; no room timed out",
      `Checked ${batchLines} batch line(s) with queue gauges: no queue of ${LARGE_QUEUE} or more held its level for ${seconds(FREEZE_MIN_US)}; ` +
        `no timeout record${modelRooms ? `; the model followed ${modelRooms} room(s) through the transfer without a stall` : ""}` +
        `${queueSamples ? `; ${queueSamples} PD queue sample(s): no queue held a level above zero while work arrived` : ""}` +
        `${traced ? `; ${traced} traced request(s): none stopped short of its finish` : ""}.`, checked);
  },
};

/**
 * Frozen queue gauges per rank: a queue of LARGE_QUEUE rooms or more that
 * holds its level for FREEZE_MIN_US. Small queues are left out: under a
 * steady trickle one room in flight at every batch line is normal.
 */

export function findPlateaus(evidence: Evidence, endUs: number, lines: GaugeLines = gaugeLines(evidence)): Plateau[] {
  const out: Plateau[] = [];
  for (const { gauge: g, byRank } of lines) {
    for (const [rank, series] of byRank) {
      const p = longestPlateau(evidence, series, endUs);
      if (p) out.push({ rank, field: g.field, queue: g.queue, ...p });
    }
  }
  // A last line followed by silence also ends every healthy run that goes
  // idle: it counts only beside a gauge seen repeating while the wedge lasted.
  return out.some((p) => p.repeated) ? out.sort((a, b) => a.first.tsUs - b.first.tsUs) : [];
}

/** One rank's readings of one gauge, in seq order, as columns. */
interface GaugeSeries {
  seq: number[];
  tsUs: number[];
  value: number[];
}

/** Per gauge, each rank's readings. */
type GaugeLines = { gauge: (typeof GAUGES)[number]; byRank: Map<string, GaugeSeries> }[];

function gaugeLines(evidence: Evidence): GaugeLines {
  return readOnce(evidence.db, gaugeLinesReading(evidence));
}

/**
 * The batch lines that carry a gauge, streamed, three numbers kept of each (a
 * batch line per scheduler step is among an incident's most numerous
 * records); the plateaus' own lines are read again by seq.
 */
function gaugeLinesReading(evidence: Evidence): Reading<GaugeLines> {
  const lines: GaugeLines = GAUGES.map((g) => ({ gauge: g, byRank: new Map() }));
  const readers = lines.map(({ gauge: g, byRank }): BlockReader => ({
    kinds: [g.kind],
    visit(ev) {
      const value = gauge(ev, g.field);
      if (value === undefined) return;
      const rank = evidence.rank(ev);
      let series = byRank.get(rank);
      if (!series) byRank.set(rank, (series = { seq: [], tsUs: [], value: [] }));
      series.seq.push(ev.seq);
      series.tsUs.push(ev.tsUs);
      series.value.push(value);
    },
  }));
  return { readers, finish: () => lines };
}

/**
 * Whether a gauge reading continues a frozen run: within 5% of the value the
 * run began with ("58–60": a wedged queue where a few rooms come and go at
 * the edge; a busy queue moves by more).
 */
function sameLevel(runValue: number, v: number): boolean {
  return Math.abs(v - runValue) <= Math.floor(runValue * 0.05);
}

function longestPlateau(evidence: Evidence, lines: GaugeSeries, endUs: number): Omit<Plateau, "rank" | "field" | "queue"> | undefined {
  let best: { first: number; last: number; silent: boolean; repeated: boolean; untilUs: number } | undefined;
  let start = 0;
  const n = lines.seq.length;
  for (let i = 1; i <= n; i++) {
    const runEnds = i === n || !sameLevel(lines.value[start]!, lines.value[i]!);
    if (!runEnds) continue;
    const first = start;
    const last = i - 1;
    const value = lines.value[first]!;
    const atEnd = i === n;
    const silent = atEnd && endUs - lines.tsUs[last]! >= FREEZE_MIN_US;
    const untilUs = silent ? endUs : lines.tsUs[last]!;
    const repeated = i - start >= FREEZE_MIN_LINES && lines.tsUs[last]! - lines.tsUs[first]! >= FREEZE_MIN_US;
    if (value >= LARGE_QUEUE && (repeated || silent) && (!best || untilUs - lines.tsUs[first]! > best.untilUs - lines.tsUs[best.first]!)) {
      best = { first, last, silent, repeated, untilUs };
    }
    start = i;
  }
  if (!best) return undefined;
  const { first, last, ...rest } = best;
  return { value: lines.value[first]!, first: evidence.event(lines.seq[first]!)!, last: evidence.event(lines.seq[last]!)!, lines: last - first + 1, ...rest };
}

function wedgeFinding(evidence: Evidence, plateaus: Plateau[], telemetry: TelemetryWedge, endUs: number): DraftFinding {
  const startUs = Math.min(plateaus[0]?.first.tsUs ?? Infinity, telemetryStartUs(telemetry) ?? Infinity);
  const witness: StoredEvent[] = [];
  for (const p of plateaus) witness.push(p.first, ...(p.last.seq !== p.first.seq ? [p.last] : []));
  const lastSeq = plateaus.some((p) => p.silent) ? lastSeqAt(evidence.db, endUs) : undefined;
  const lastEvent = lastSeq === undefined ? undefined : evidence.event(lastSeq);
  if (lastEvent) witness.push(lastEvent);
  witness.push(...telemetryWitness(telemetry));
  const describe = (p: Plateau): string =>
    p.silent
      ? `${p.rank}'s last batch line ${p.lines > 1 ? `(and the ${p.lines - 1} before it) ` : ""}reports ${p.field}: ${p.value} (${evidence.where(p.last)}), then no batch line for ${seconds(endUs - p.last.tsUs)} while the incident goes on to ${lastEvent ? evidence.where(lastEvent) : isoTime(endUs)}`
      : `${p.rank} reports ${p.field}: ${p.value} on ${p.lines} consecutive batch lines over ${seconds(p.last.tsUs - p.first.tsUs)} (${evidence.where(p.first)} to ${evidence.where(p.last)})`;
  const shows = [
    ...plateaus.map(describe),
    ...telemetry.frozen.map((f, i) => describeFrozen(evidence, f, telemetry.lines[i] ?? [])),
    ...(telemetry.stopped.length ? [describeStopped(evidence, telemetry.stopped)] : []),
    ...(telemetry.unfinished.length ? [describeUnfinished(evidence, telemetry.unfinished)] : []),
  ];
  const heads = [
    ...plateaus.map((p) => `${p.field} frozen at ${p.value} on ${p.rank}`),
    ...telemetry.frozen.map((f) => `${f.series.spec.label} frozen at ${f.value} on ${f.series.rank}`),
    ...(telemetry.stopped.length ? [`${telemetry.stopped.length} request trace(s) that stop`] : []),
  ];
  const stuckRooms = [...new Set([...telemetry.stopped.flatMap((r) => (r.room === null ? [] : [r.room])), ...telemetry.unfinished.map((e) => e.room!)])];
  const sources = [plateaus.length || telemetry.lines.some((l) => l.length) ? "batch lines" : "", telemetry.frozen.length ? "queue series" : "", telemetry.stopped.length ? "traces" : ""].filter(Boolean);
  return {
    rule: "transfer-stall",
    severity: "high",
    verdict: "violated",
    title: `Transfer path wedged from ${isoTime(startUs)}: ${heads.join(", ")}`,
    ranks: [...new Set([...plateaus.map((p) => p.rank), ...telemetry.frozen.map((f) => f.series.rank)])],
    tsUs: startUs,
    witness: uniqueEvents(witness),
    ...(stuckRooms.length ? { room: stuckRooms[0], rooms: stuckRooms, count: stuckRooms.length } : {}),
    explanation:
      `Let the PD path's progress be read from the ${sources.join(", the ")} (docs/protocol.md §2.1, §2.2; docs/telemetry.md). Then a working transfer path drains them within seconds and every room's stages run to its finish, ` +
      `but ${shows.join("; and ")}. The wedge began at ${isoTime(startUs)} at the latest.`,
    falsify: FALSIFY,
    checked: plateaus.reduce((n, p) => n + p.lines, 0) + telemetry.frozen.reduce((n, f) => n + f.samples, 0) + telemetry.stopped.length,
    facts: {
      wedgeStartUs: startUs,
      plateaus: [
        ...plateaus.map((p) => ({ rank: p.rank, field: p.field, value: p.value, silent: p.silent })),
        ...telemetry.frozen.map((f) => ({ rank: f.series.rank, field: f.series.metric, value: f.value, silent: false })),
      ],
      stuckRooms,
      stoppedTraces: telemetry.stopped.length,
      seenIn: sources,
    },
  };
}

