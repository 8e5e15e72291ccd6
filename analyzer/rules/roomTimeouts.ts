// Rooms past a PD timeout: `timed out after {s}s in KVPoll.{state}` failure
// lines (sglang-pd-logs-and-protocol.md §3.5) and probe `kv.timeout` records,
// one finding per room naming every rank that timed it out, with the model's
// cause for the room when a replay ran (analyzer/model stall causes:
// transfer-in-flight, prefill-not-bootstrapped, bootstrap-thread-dead, ...).

import { LogKind } from "../../ingest/event.js";
import type { StoredEvent } from "../../ingest/store/queries.js";
import { KVPoll } from "../model/api.js";
import { attrNumber, attrString, type Evidence } from "./evidence.js";
import { violationsOf, type ReplayEvidence } from "./replayEvidence.js";
import type { DraftFinding } from "./rule.js";

export interface TimeoutRecord {
  ev: StoredEvent;
  room: string | undefined;
  state: string;
  afterS: number | undefined;
}

const FAILURE_KINDS = [LogKind.transferFailed, LogKind.handshakeFailed, LogKind.bootstrapFailed];

/** Rooms in this many timeouts make each of them a high-severity finding: the path is stalling, not one room. */
const MANY_ROOMS = 3;

const FALSIFY =
  "Replay the same arrivals with the transfer path instrumented (probe kv.post/kv.done per queue); a path with headroom finishes every room within the waiting timeout.";

/** Every timeout record (one per rank that logged it), from log lines and probe kv.timeout. */
export function timeoutEvents(evidence: Evidence): TimeoutRecord[] {
  const out: TimeoutRecord[] = [];
  for (const ev of evidence.ofKinds(...FAILURE_KINDS, "kv.timeout")) {
    if (ev.kind === "kv.timeout") out.push({ ev, room: ev.room ?? undefined, state: attrString(ev, "state") ?? pollName(ev.state), afterS: attrNumber(ev, "after_s") });
    else if (attrString(ev, "reasonKind") === "timeout") {
      out.push({ ev, room: ev.room ?? undefined, state: attrString(ev, "timeoutState") ?? "unknown", afterS: attrNumber(ev, "timeoutS") });
    }
  }
  return out;
}

/**
 * Requests aborted or timed out on the PD path: each made decode release its
 * pages before the transfer was known to be done (§8 abort, §5.2 timeout).
 * Rooms where the records name them; aborts logged by rid only are counted.
 */
export function earlyReleases(evidence: Evidence): { rooms: Set<string>; count: number } {
  const rooms = new Set(timeoutEvents(evidence).flatMap((t) => (t.room ? [t.room] : [])));
  const aborted = (ev: StoredEvent): boolean => {
    if (ev.kind === "req.abort") return true;
    if (ev.kind === LogKind.abortSent) return ev.attrs?.failed !== true;
    return attrString(ev, "reasonKind") === "abort";
  };
  for (const ev of evidence.ofKinds("req.abort", LogKind.abortSent, ...FAILURE_KINDS)) if (ev.room && aborted(ev)) rooms.add(ev.room);
  const byRid = new Set(evidence.of(LogKind.abortRequest).flatMap((e) => (e.rid ? [e.rid] : [])));
  return { rooms, count: rooms.size + byRid.size };
}

/** KVPoll's name for a stored state (sglang-pd-logs-and-protocol.md §5). */
function pollName(state: number | null): string {
  const name = state === null ? undefined : (Object.entries(KVPoll) as [string, number][]).find(([, v]) => v === state)?.[0];
  return name ?? "unknown";
}

/** The model's cause for each stalled room. */
function stallCauses(replay: ReplayEvidence | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const v of violationsOf(replay, "transfer-stall")) {
    if (v.room !== undefined && !out.has(v.room)) out.set(v.room, typeof v.detail.cause === "string" ? v.detail.cause : "unknown");
  }
  return out;
}

export function roomTimeoutFindings(evidence: Evidence, records: TimeoutRecord[], replay: ReplayEvidence | undefined): DraftFinding[] {
  const groups = new Map<string, TimeoutRecord[]>();
  for (const t of records) groups.set(t.room ?? `#${t.ev.seq}`, [...(groups.get(t.room ?? `#${t.ev.seq}`) ?? []), t]);
  const causeOf = stallCauses(replay);
  const byState = new Map<string, number>();
  for (const g of groups.values()) byState.set(g[0]!.state, (byState.get(g[0]!.state) ?? 0) + 1);
  const causes: Record<string, number> = {};
  for (const cause of causeOf.values()) causes[cause] = (causes[cause] ?? 0) + 1;
  const states = [...byState].map(([state, n]) => `${n} in KVPoll.${state}`).join(", ");
  const rooms = [...groups.values()].flatMap((g) => (g[0]!.room ? [g[0]!.room] : []));
  return [...groups.values()].map((g, i) => {
    const lead = i === 0;
    const aggregate = lead
      ? ` In all ${groups.size} room(s) timed out (${states})` +
        (Object.keys(causes).length ? `; replayed, the model finds why: ${Object.entries(causes).map(([c, n]) => `${n} ${c}`).join(", ")}.` : ".")
      : "";
    return roomFinding(evidence, g, groups.size, causeOf, aggregate, lead ? { rooms, states: Object.fromEntries(byState), causes } : {});
  });
}

function roomFinding(evidence: Evidence, records: TimeoutRecord[], roomCount: number, causeOf: Map<string, string>, aggregate: string, leadFacts: Record<string, unknown>): DraftFinding {
  const first = records[0]!;
  const room = first.room;
  const start = room ? roomStart(evidence, room, first.ev.seq) : undefined;
  const ranks = [...new Set(records.map((t) => evidence.rank(t.ev)))].sort();
  const cause = room ? causeOf.get(room) : undefined;
  return {
    rule: "transfer-stall",
    severity: roomCount >= MANY_ROOMS ? "high" : "medium",
    verdict: "violated",
    title: `Room ${room ?? "?"} timed out in KVPoll.${first.state}${first.afterS ? ` after ${first.afterS} s` : ""} on ${ranks.length} rank(s)${roomCount > 1 ? ` (one of ${roomCount} rooms)` : ""}`,
    ...(room && { room }),
    ranks,
    tsUs: first.ev.tsUs,
    witness: start ? [start, first.ev] : [first.ev],
    explanation:
      `Let room ${room ?? "?"} ${start ? `enter the PD path at ${evidence.where(start)}` : "enter the PD transfer path"}. ` +
      `Then it must reach Success or Failed before the ${first.afterS ?? "configured"} s limit of KVPoll.${first.state} (§5.2, §10), ` +
      `but it timed out there (${evidence.where(first.ev)}${ranks.length > 1 ? ` and on ${ranks.length - 1} more rank(s)` : ""})` +
      `${cause ? `; replayed, the model finds the cause: ${cause}` : ""}.${aggregate}`,
    falsify: FALSIFY,
    checked: records.length,
    facts: { room, state: first.state, ...(cause && { cause }), ...leadFacts },
  };
}

function roomStart(evidence: Evidence, room: string, beforeSeq: number): StoredEvent | undefined {
  const row = evidence.db.prepare("SELECT seq FROM events WHERE room = ? AND seq < ? ORDER BY seq LIMIT 1").get(room, beforeSeq) as { seq: number } | undefined;
  return row ? evidence.event(row.seq) : undefined;
}
