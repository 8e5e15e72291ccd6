// What process-failure and transport-failure share: their failure records
// grouped one finding per cause (family and class, DESIGN.md "Findings": one
// finding per cause and mechanism), with the ranks, rooms and times the group
// covers and a representative witness per rank.

import { isoTime, uniqueEvents, type Evidence } from "./evidence.js";
import { template, type FailureFamily, type FailureRecord } from "./failures.js";
import type { Gap } from "./gaps/index.js";
import type { DraftFinding } from "./rule.js";
import { serverOfRank } from "../model/ranks.js";
import type { StoredEvent } from "../../store/read/events.js";

/** Witness lines of one group: the first record of each rank, and of each other message, at most. */
const WITNESS_RANKS = 6;
const WITNESS_MESSAGES = 3;
/**
 * Failures of one family on shared ranks this close together are one
 * cause: an NCCL watchdog timeout and the terminate it ends in, a Mooncake
 * session failure and the rooms it fails.
 */
const CHAIN_WINDOW_US = 60_000_000;

export interface FailureGroup {
  family: FailureFamily;
  cls: string;
  records: FailureRecord[];
  ranks: string[];
  rooms: string[];
  fatal: boolean;
  /** The distinct messages of the group, first seen first. */
  summaries: string[];
}

export function groupFailures(records: FailureRecord[]): FailureGroup[] {
  const groups = new Map<string, FailureGroup>();
  for (const r of records) {
    const key = `${r.family}|${r.cls}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { family: r.family, cls: r.cls, records: [], ranks: [], rooms: [], fatal: false, summaries: [] }));
    g.records.push(r);
    addRank(g.ranks, r.rank);
    for (const room of [...(r.ev.room ? [r.ev.room] : []), ...(r.rooms ?? [])]) if (!g.rooms.includes(room)) g.rooms.push(room);
    if (!g.summaries.some((m) => template(m) === template(r.summary))) g.summaries.push(r.summary);
    g.fatal ||= r.fatal;
  }
  return chained([...groups.values()]);
}

/** Groups folded into an earlier one of the same family, sharing a rank, that they follow within CHAIN_WINDOW_US. */
function chained(groups: FailureGroup[]): FailureGroup[] {
  const out: FailureGroup[] = [];
  for (const g of groups.sort((a, b) => a.records[0]!.ev.seq - b.records[0]!.ev.seq)) {
    const start = g.records[0]!.ev.tsUs;
    // Transfers an abort stopped and failed probes are not folded into failures of the transport, nor these into them: their weight differs.
    const cause = out.find((h) => h.family === g.family && shareRank(h.ranks, g.ranks) && start - h.records.at(-1)!.ev.tsUs <= CHAIN_WINDOW_US && start >= h.records[0]!.ev.tsUs && weakness(h) === weakness(g));
    if (!cause) {
      out.push(g);
      continue;
    }
    cause.records.push(...g.records);
    cause.records.sort((a, b) => a.ev.seq - b.ev.seq);
    for (const room of g.rooms) if (!cause.rooms.includes(room)) cause.rooms.push(room);
    for (const m of g.summaries) if (!cause.summaries.some((c) => template(c) === template(m))) cause.summaries.push(m);
    for (const rank of g.ranks) addRank(cause.ranks, rank);
    cause.fatal ||= g.fatal;
  }
  return out;
}

/** What makes every record of a group weak evidence of a transport failure: all aborts, all failed probes, or neither. */
export function weakness(g: FailureGroup): "aborts" | "probes" | null {
  if (g.records.every((r) => r.aborted === true)) return "aborts";
  if (g.records.every((r) => r.probe === true)) return "probes";
  return null;
}

/**
 * Whether a later group names a rank of an earlier one, or the server of one of its ranks (a line of no TP rank
 * after a rank's failure: the launcher's `Received sigquit from a child process`). A rank's failure after a
 * server's lines is not folded into them: those name no rank, and may be the ranks' own cause (DeepEP's timeouts).
 */
function shareRank(earlier: string[], later: string[]): boolean {
  return earlier.some((r) => later.some((s) => r === s || isServerOf(s, r)));
}

/** Adds a rank to a group's; a server whose rank the group names is that rank's already, and gives way to it. */
function addRank(ranks: string[], rank: string): void {
  if (ranks.includes(rank) || ranks.some((r) => isServerOf(rank, r))) return;
  const server = ranks.findIndex((r) => isServerOf(r, rank));
  if (server >= 0) ranks.splice(server, 1);
  ranks.push(rank);
}

function isServerOf(server: string, rank: string): boolean {
  return serverOfRank(server) === server && serverOfRank(rank) === server;
}

export interface GroupText {
  severity: DraftFinding["severity"];
  title: string;
  explanation: string;
  falsify: string;
  facts?: Record<string, unknown>;
  because?: DraftFinding["because"];
}

/** The finding of one group, its texts given by the rule. */
export function groupFinding(rule: DraftFinding["rule"], g: FailureGroup, text: GroupText, extraWitness: DraftFinding["witness"] = []): DraftFinding {
  const first = g.records[0]!;
  const perRank = g.ranks.slice(0, WITNESS_RANKS).map((rank) => g.records.find((r) => r.rank === rank)!.ev);
  // A chained group shows its first record of each message too (the session failure after the engine's errors).
  const perMessage = g.summaries.slice(1, WITNESS_MESSAGES + 1).map((m) => g.records.find((r) => template(r.summary) === template(m))!.ev);
  return {
    rule,
    severity: text.severity,
    verdict: "violated",
    title: text.title,
    ...(g.rooms[0] !== undefined && { room: g.rooms[0] }),
    ...(g.rooms.length > 1 && { rooms: g.rooms }),
    ranks: [...g.ranks].sort(),
    // A record of a file with no dated line has no time to state (its tsUs only orders it).
    ...(first.ev.timeless !== true && { tsUs: first.ev.tsUs }),
    witness: uniqueEvents([...perRank, ...perMessage, ...(first.witness ?? []), ...extraWitness]),
    explanation: text.explanation,
    falsify: text.falsify,
    ...(text.because && { because: text.because }),
    count: g.rooms.length > 1 ? g.rooms.length : g.records.length,
    facts: {
      family: g.family, cls: g.cls, fatal: g.fatal, ranks: g.ranks, firstUs: first.ev.tsUs, records: g.records.length,
      recordKinds: [...new Set(g.records.map((r) => r.ev.kind))],
      threads: [...new Set(g.records.flatMap((r) => (typeof r.ev.attrs?.thread === "string" ? [r.ev.attrs.thread] : [])))],
      ...text.facts,
    },
  };
}

/**
 * The ranks in words, "prefill/tp1" or "3 ranks (prefill/tp0, prefill/tp1,
 * prefill/tp2)"; `start` when they open a sentence (a rank label keeps its case).
 */
export function ranksText(ranks: string[], start = false): string {
  if (ranks.length === 1) return ranks[0] === "unknown" ? `${start ? "A" : "a"} process of unknown role` : ranks[0]!;
  return `${ranks.length} ranks (${[...ranks].sort().join(", ")})`;
}

/** Who a group's records name: its ranks, and apart from them the machines, pods and Slurm steps that are not ranks. */
export function groupParties(g: FailureGroup): { ranks: string[]; places: string[] } {
  const places = new Set(g.records.filter((r) => r.machine === true).map((r) => r.rank));
  return { ranks: g.ranks.filter((r) => !places.has(r)), places: [...places].sort() };
}

/** Machines, pods and Slurm steps in words: "machine node-3", "Slurm step 1234.0 and machine node-3"; `start` capitalises the first. */
export function placesText(places: string[], start = false): string {
  const text = places.length <= 1 ? (places[0] ?? "") : `${places.slice(0, -1).join(", ")} and ${places.at(-1)!}`;
  return start ? text.charAt(0).toUpperCase() + text.slice(1) : text;
}

/** A group's ranks and places in words: "decode/tp0 and machine gpu-node-9", "2 ranks (…) and Slurm step 1234.0". */
export function partiesText(g: FailureGroup, start = false): string {
  const { ranks, places } = groupParties(g);
  if (places.length === 0) return ranksText(ranks, start);
  if (ranks.length === 0) return placesText(places, start);
  return `${ranksText(ranks, start)} and ${placesText(places)}`;
}

/** "3 ranks" when the group names ranks only, else who it names ("prefill/tp0 and machine gpu-node-3"). */
function onParties(g: FailureGroup): string {
  return groupParties(g).places.length === 0 ? `${g.ranks.length} ranks` : partiesText(g);
}

/** Where and when the group starts, and how many more records it has. */
export function occurrence(evidence: Evidence, g: FailureGroup): string {
  const first = g.records[0]!;
  const when = first.ev.timeless ? "an unknown time (no line of its file is dated)" : first.ev.tsInferred ? undatedWhen(first.ev) : isoTime(first.ev.tsUs);
  const more = g.records.length > 1 ? ` and ${g.records.length - 1} more record(s)${g.ranks.length > 1 ? ` on ${onParties(g)}` : ""}` : "";
  return `${ranksText([first.rank])} ${first.telemetry === true || first.shown === true ? "showed" : "logged"} \`${first.summary}\` at ${when} (${evidence.where(first.ev)})${more}`;
}

/**
 * When a record with no time of its own (a dump, a device's print, a traceback) was written: between its file's dated
 * neighbours (ingest/formats/log/dating.ts `writtenBetweenUs`), not at the instant interpolated to place it.
 */
function undatedWhen(ev: StoredEvent): string {
  const bounds = ev.attrs?.writtenBetweenUs;
  if (!Array.isArray(bounds)) return `about ${isoTime(ev.tsUs)}`;
  const [from, to] = bounds as (number | null)[];
  const unstated = "a time its line does not state";
  if (from != null && to != null) return from === to ? `${isoTime(from)} (its line states no time; the lines around it do)` : `${unstated}, between ${isoTime(from)} and ${isoTime(to)}`;
  if (from != null) return `${unstated}, after ${isoTime(from)}`;
  return to != null ? `${unstated}, before ${isoTime(to)}` : `about ${isoTime(ev.tsUs)}`;
}

/** Python's exception groups (PEP 654): a group's own message says only that its members failed. */
const EXCEPTION_GROUP = /(?:^|\.)(?:Base)?ExceptionGroup$/;

/**
 * The message a group is titled by: its first record's, unless that record is an exception group, whose members'
 * exceptions (records of their own, ingest/formats/log/exceptionGroup.ts) say what failed.
 */
export function headline(g: FailureGroup): string {
  const telling = g.records.find((r) => !EXCEPTION_GROUP.test(String(r.ev.attrs?.excType ?? "")));
  return telling?.summary ?? g.summaries[0]!;
}

/** The group's messages other than its headline and its first record's (which occurrence quotes), first seen first, for an explanation. */
export function otherMessages(g: FailureGroup): string {
  const said = [headline(g), g.records[0]!.summary];
  const others = g.summaries.filter((m) => !said.includes(m));
  return others.length > 0 ? ` The group also holds: ${others.slice(0, 3).map((m) => `\`${m}\``).join(", ")}${others.length > 3 ? ` and ${others.length - 3} more` : ""}.` : "";
}

/** The silences (evidence gaps) that the group's deaths explain. */
export function silencesAfter(g: FailureGroup, gaps: readonly Gap[]): Gap[] {
  return gaps.filter((x) => x.gap.kind === "time-gap" && x.gap.explainedBy !== undefined && g.records.some((r) => r.fatal && x.witness.includes(r.ev)));
}
