// Failure records from the operator's telemetry, for process-failure and
// transport-failure beside the ones read from logs (failures.ts): a crash
// dump with the requests it held unfinished, PD failure and abort counters
// that rose, and a scheduler progress counter that stopped while its server
// kept answering scrapes.

import { TelemetryKind } from "../../domain/kinds.js";
import { decodeAs } from "../events/decode.js";
import type { StoredEvent } from "../../store/read/events.js";
import { counterRises, stoppedEngines, type CounterRise } from "../telemetry/series.js";
import { isoTime, seconds, type Evidence } from "./evidence.js";
import type { FailureRecord } from "./failures.js";

export function telemetryFailureRecords(evidence: Evidence): FailureRecord[] {
  return [
    ...crashDumps(evidence),
    ...counterRises(evidence, "transfer-failures").map((r) => riseRecord(r, "transfer-failed")),
    ...counterRises(evidence, "bootstrap-failures").map((r) => riseRecord(r, "bootstrap")),
    ...counterRises(evidence, "aborts").map((r) => ({ ...riseRecord(r, "aborts"), aborted: true })),
    ...hungSchedulers(evidence),
  ];
}

/** SGLang writes a crash dump when its server goes down with requests in memory (docs/telemetry.md "Crash dumps"). */
function crashDumps(evidence: Evidence): FailureRecord[] {
  const unfinished = new Map<number, StoredEvent[]>();
  for (const ev of evidence.of(TelemetryKind.crashRequest)) {
    const req = decodeAs(ev, TelemetryKind.crashRequest);
    if (req?.finished !== false || req.room === undefined) continue;
    unfinished.set(ev.sourceId, [...(unfinished.get(ev.sourceId) ?? []), ev]);
  }
  return evidence.of(TelemetryKind.crashDump).map((ev) => {
    const dump = decodeAs(ev, TelemetryKind.crashDump);
    const held = unfinished.get(ev.sourceId) ?? [];
    const rooms = held.map((r) => r.room!);
    const summary = `the server went down and dumped its requests (crash dump: ${dump?.unfinished ?? rooms.length} unfinished${rooms.length ? `, rooms ${rooms.slice(0, 3).join(", ")}${rooms.length > 3 ? ", …" : ""}` : ""})`;
    return { ev, family: "process", cls: "crash", fatal: true, rank: evidence.rank(ev), signature: `process|crash|${TelemetryKind.crashDump}`, summary, rooms, telemetry: true, witness: held.slice(0, 3) };
  });
}

function riseRecord(r: CounterRise, cls: string): FailureRecord {
  const span = r.last.ev.tsUs > r.first.ev.tsUs ? ` by ${isoTime(r.last.ev.tsUs)}` : "";
  const summary = `${r.series.metric} rose by ${r.increase} (from ${r.before.value} at ${isoTime(r.before.ev.tsUs)}${span})`;
  return { ev: r.first.ev, family: "transport", cls, fatal: false, rank: r.series.rank, signature: `transport|${cls}|${r.series.metric}`, summary, telemetry: true, witness: [r.before.ev, r.last.ev] };
}

/**
 * An engine's forward progress flat while requests waited to run and its
 * endpoint was still scraped: the HTTP server answered (it serves /metrics
 * and /health), the scheduler ran no forward pass — a hang no exception reports.
 */
function hungSchedulers(evidence: Evidence): FailureRecord[] {
  return stoppedEngines(evidence).map((s) => ({
    ev: s.lastRise.ev,
    family: "process",
    cls: "scheduler-hang",
    fatal: false,
    rank: s.rank,
    telemetry: true,
    witness: [s.last.ev, s.waiting.sample.ev],
    signature: `process|scheduler-hang|${s.engine}`,
    summary:
      `no forward progress from ${isoTime(s.lastRise.ev.tsUs)} (${s.last.ev.attrs?.metric ?? "progress"} flat on ${s.flatSamples} more scrapes over ${seconds(s.last.ev.tsUs - s.lastRise.ev.tsUs)}) ` +
      `while ${s.waiting.series.spec.label} held ${s.waiting.sample.value} at ${isoTime(s.waiting.sample.ev.tsUs)}`,
  }));
}
