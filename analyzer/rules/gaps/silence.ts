// Silent stretches: a source whose periodic records (batch lines, probe
// scheduler iterations) pause for a while, or stop before the incident ends,
// while other sources keep writing theirs: a lost segment or a rank that
// stopped. A rotated log's parts are one stream (sources.stream): a part that
// ends where the next one takes over has not stopped. A fatal failure of that rank, or of its server (one
// scheduler's crash makes SGLang kill the whole server: failures.ts), at the
// start of the silence explains it.

import { recordsBetweenElsewhere } from "../../../store/read/ranks.js";
import type { Reading } from "../../../store/blocks/pass.js";
import { lastRecordPerStreamReading } from "../../../store/read/seqs.js";
import { sourcePausesReading, type SourcePause } from "../../../store/read/sources.js";
import { isoTime, seconds, type Evidence } from "../evidence.js";
import { deathsByRank, type FailureRecord } from "../failures.js";
import { machinesOfPods } from "../placements.js";
import { rulesOfSource, type Gap } from "./gap.js";
import { serverOfRank } from "../../model/ranks.js";

/** Records written every iteration or every few: their silence is visible. */
export const PERIODIC_KINDS = ["batch.prefill", "batch.decode", "sched.iter"];
/** A source's periodic records absent this long while others' continue is a gap. */
export const GAP_MIN_US = 120_000_000;
/** Records elsewhere inside a silence that make it a gap rather than a pause of the whole cluster. */
const GAP_OTHER_EVENTS = 5;
/** A failure this close to the silence's start explains it (tracebacks carry the time of the line before them). */
const EXPLAIN_SLACK_US = 30_000_000;

interface Silence {
  stream: string;
  sourceId: number;
  beforeSeq: number;
  beforeUs: number;
  /** The record that ends it, or none when the source never writes one again. */
  afterSeq: number | null;
  afterUs: number;
}

/** The silent stretches, from what one pass over the periodic records gives (shared with other readers: store/blocks/pass.ts). */
export function silentStretchesReading(evidence: Evidence): Reading<Gap[]> {
  const pauses = sourcePausesReading(evidence.db, PERIODIC_KINDS, GAP_MIN_US);
  const lasts = lastRecordPerStreamReading(evidence.db, PERIODIC_KINDS);
  return { readers: [...pauses.readers, ...lasts.readers], finish: () => silentStretches(evidence, pauses.finish(), lasts.finish()) };
}

function silentStretches(evidence: Evidence, pauses: readonly SourcePause[], lastRecords: readonly { stream: string; sourceId: number; seq: number; tsUs: number }[]): Gap[] {
  const endUs = evidence.endUs();
  const silences: Silence[] = pauses.map((p) => ({ ...p }));
  for (const last of lastRecords) {
    if (endUs - last.tsUs >= GAP_MIN_US) silences.push({ stream: last.stream, sourceId: last.sourceId, beforeSeq: last.seq, beforeUs: last.tsUs, afterSeq: null, afterUs: endUs });
  }
  const deaths = deathsByRank(evidence);
  const podMachines = machinesOfPods(evidence);
  const parts = new Map<string, number>();
  for (const src of evidence.sources()) parts.set(src.stream, (parts.get(src.stream) ?? 0) + 1);
  const out: Gap[] = [];
  for (const s of silences.sort((a, b) => a.beforeSeq - b.beforeSeq)) {
    const source = evidence.source(s.sourceId);
    if (!source) continue;
    const others = recordsBetweenElsewhere(evidence.db, PERIODIC_KINDS, s.beforeUs, s.afterUs, s.stream);
    if (others < GAP_OTHER_EVENTS) continue;
    const before = evidence.event(s.beforeSeq)!;
    const after = s.afterSeq === null ? undefined : evidence.event(s.afterSeq);
    const rank = evidence.rank(before);
    const name = (parts.get(s.stream) ?? 0) > 1 ? `${s.stream} (rotated, ${parts.get(s.stream)} files)` : source.path;
    const death = explainingDeath(deaths, rank, s) ?? machineDeath(deaths, before.host, podMachines, s);
    // A death of the machine at a time its log does not give (plain dmesg) may be the silence's cause, or may come after it.
    const maybe = death !== undefined && death.machine === true && death.ev.timeless;
    const span = after
      ? `for ${seconds(s.afterUs - s.beforeUs)} (${evidence.where(before)} to ${evidence.where(after)})`
      : `after ${evidence.where(before)}, for the last ${seconds(s.afterUs - s.beforeUs)} of the incident`;
    const why = death ? `; ${death.machine ? `a process of ${death.rank}` : death.rank} ${death.fatal ? "died" : "failed"} at ${death.ev.timeless ? "an unknown time" : isoTime(death.ev.tsUs)} (${evidence.where(death.ev)}: ${death.summary}), which ${maybe ? "may explain" : "explains"} it` : "";
    const explainedBy = death && !maybe ? `${death.rank} ${death.fatal ? "crashed" : "failed"}: ${death.summary} (${evidence.where(death.ev)})` : undefined;
    out.push({
      severity: "low",
      witness: [before, ...(after ? [after] : []), ...(death ? [death.ev] : [])],
      gap: {
        kind: "time-gap",
        source: name,
        ranks: [rank],
        from: isoTime(s.beforeUs),
        to: isoTime(s.afterUs),
        // What the rank did in its silence is unknown (a hang, a lost segment): the rules its records feed keep their verdicts on what was logged.
        ...(explainedBy !== undefined ? { blinds: [], explainedBy } : { weakens: rulesOfSource(source.role) }),
        detail: `${name} writes no periodic record ${span} while ${others} were written elsewhere${why}`,
      },
    });
  }
  return out;
}

/**
 * A fatal failure the kernel or Kubernetes reported of the silent rank's
 * machine or pod (an OOM kill, a container's termination): at the silence's
 * start, or at a time unknown. The machine is the rank's host, or the one
 * its pod ran on (`podMachines`, ../placements.ts).
 */
function machineDeath(deaths: Map<string, FailureRecord>, host: string | null, podMachines: ReadonlyMap<string, string>, s: Silence): FailureRecord | undefined {
  if (host === null) return undefined;
  const onIt = (machine: string | undefined): FailureRecord | undefined =>
    machine === undefined ? undefined : [...deaths.values()].find((f) => f.machine === true && f.machineName === machine && (f.ev.timeless || Math.abs(f.ev.tsUs - s.beforeUs) <= EXPLAIN_SLACK_US));
  return onIt(host) ?? onIt(podMachines.get(host));
}

/** The fatal failure of the silent rank, or of another rank of its server, at the silence's start. */
function explainingDeath(deaths: Map<string, FailureRecord>, rank: string, s: Silence): FailureRecord | undefined {
  const server = serverOfRank(rank);
  // A record with no time of its own (a faulthandler dump) happened at or after the time it carries.
  const near = (f: FailureRecord): boolean => f.ev.tsUs <= s.beforeUs + EXPLAIN_SLACK_US && (f.ev.tsInferred || f.ev.tsUs >= s.beforeUs - EXPLAIN_SLACK_US);
  const own = deaths.get(rank);
  if (own && near(own)) return own;
  return [...deaths.values()].find((f) => f.rank.startsWith(`${server}/`) && near(f));
}
