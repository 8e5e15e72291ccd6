// What the rules read: typed, cached views over one incident database. Rules
// ask for the event kinds they need (indexed reads, no full scans) and turn
// the events they keep into witness lines with their provenance.

import { eventRanks } from "../../store/read/ranks.js";
import { timeBounds } from "../../store/read/seqs.js";
import type { IncidentDb } from "../../store/db.js";
import { getMetaJson } from "../../store/db.js";
import { eachEventOfKind, eventBySeq, eventsOfKind, type StoredEvent } from "../../store/read/events.js";
import { eventCount } from "../../store/read/incident.js";
import { scanEvents } from "../../store/blocks/scan.js";
import { listIngestedSources, listSources, type SourceRow } from "../../store/read/sources.js";
import type { WitnessLine } from "./finding.js";
import { rankLabel } from "../model/ranks.js";
import { modelOptions } from "../replay/modelOptions.js";
import { RunConfig } from "./config.js";

export class Evidence {
  private readonly byKind = new Map<string, StoredEvent[]>();
  private sourceRows: SourceRow[] | undefined;
  private allSourceRows: SourceRow[] | undefined;
  private sourceById: Map<number, SourceRow> | undefined;
  private runConfig: RunConfig | undefined;
  private qualifyHosts: boolean | undefined;
  private rankRowsCache: Pick<StoredEvent, "host" | "role" | "pp" | "tp">[] | undefined;

  constructor(readonly db: IncidentDb) {}

  /** Every event of one kind, in seq order. */
  of(kind: string): StoredEvent[] {
    let evs = this.byKind.get(kind);
    if (!evs) {
      evs = eventsOfKind(this.db, kind);
      this.byKind.set(kind, evs);
    }
    return evs;
  }

  /**
   * Every event of one kind, in seq order, one at a time and not kept: for kinds
   * with an event per page or per write, whose list would grow with the incident.
   */
  each(kind: string, visit: (ev: StoredEvent) => void): void {
    const kept = this.byKind.get(kind);
    if (kept) kept.forEach((ev) => visit(ev));
    else eachEventOfKind(this.db, kind, visit);
  }

  /**
   * Every event of one kind, in seq order, through the store's one reusable
   * cursor (store/blocks/eventCursor.ts): a field is read when asked for, the
   * text only if read. For passes over a kind with an event per page or per
   * write that keep a few fields of each: copy what you keep, never the event.
   */
  scan(kind: string, visit: (ev: StoredEvent) => void): void {
    const kept = this.byKind.get(kind);
    if (kept) kept.forEach((ev) => visit(ev));
    else scanEvents(this.db, { kinds: [kind] }, (cursor) => visit(cursor));
  }

  /** Events of several kinds merged in seq order. */
  ofKinds(...kinds: string[]): StoredEvent[] {
    return kinds.flatMap((k) => this.of(k)).sort((a, b) => a.seq - b.seq);
  }

  event(seq: number): StoredEvent | undefined {
    return eventBySeq(this.db, seq);
  }

  /**
   * Every (host, role, tp) with events, read from the covering rank index
   * (pp is left out: it is not in that index, and ranks of one TP group share it).
   */
  rankRows(): Pick<StoredEvent, "host" | "role" | "pp" | "tp">[] {
    this.rankRowsCache ??= eventRanks(this.db).map((r) => ({ ...r, role: r.role as StoredEvent["role"], pp: null }));
    return this.rankRowsCache;
  }

  /** The last time anything was logged. */
  endUs(): number {
    return timeBounds(this.db).lastUs ?? 0;
  }

  eventCount(): number {
    return eventCount(this.db);
  }

  sources(): SourceRow[] {
    this.sourceRows ??= listIngestedSources(this.db);
    return this.sourceRows;
  }

  /** Every input of the incident: ingested, and skipped or refused at ingest (with the reason). */
  allSources(): SourceRow[] {
    this.allSourceRows ??= listSources(this.db);
    return this.allSourceRows;
  }

  source(id: number): SourceRow | undefined {
    this.sourceById ??= new Map(this.sources().map((s) => [s.id, s]));
    return this.sourceById.get(id);
  }

  witness(ev: StoredEvent): WitnessLine {
    const line: WitnessLine = { seq: ev.seq, source: this.source(ev.sourceId)?.path ?? `source#${ev.sourceId}`, line: ev.line, text: ev.text };
    if (ev.tsInferred) line.tsInferred = true;
    if (ev.timeless) line.timeless = true;
    return line;
  }

  /** Where an event sits, for explanations a reader checks by hand: "decode-0/tp3.log:8812". */
  where(ev: StoredEvent): string {
    return `${this.source(ev.sourceId)?.path ?? `source#${ev.sourceId}`}:${ev.line}`;
  }

  config(): RunConfig {
    this.runConfig ??= new RunConfig(this.of("config"));
    return this.runConfig;
  }

  meta<T>(key: string): T | undefined {
    return getMetaJson<T>(this.db, key);
  }

  /**
   * The rank an event belongs to, labelled as the replay labels the model's
   * violations: "decode/tp3", "decode/pp1/tp3", with the host in front
   * ("d1/decode/tp3") when a role runs on more than one host.
   */
  rank(ev: Pick<StoredEvent, "host" | "role" | "pp" | "tp">): string {
    const role = ev.role ?? "unknown";
    this.qualifyHosts ??= modelOptions(this.db).qualifyHosts ?? false;
    const qualify = this.qualifyHosts;
    if (ev.tp !== null) return rankLabel(ev.host, role, ev.pp, ev.tp, qualify);
    // No TP tag and none the ingest gave it from its per-rank file (ingest/sources/sourceIdentity.ts): its role alone.
    return qualify && ev.host ? `${ev.host}/${role}` : role;
  }
}

/** An attribute as a string (rooms and tags stay strings; numbers are printed). */
export function attrString(ev: StoredEvent, key: string): string | undefined {
  const v = ev.attrs?.[key];
  if (v === undefined || v === null) return undefined;
  return typeof v === "string" ? v : String(v);
}

export function attrNumber(ev: StoredEvent, key: string): number | undefined {
  const v = ev.attrs?.[key];
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}

/** The events once each, in the order given (a witness names a line once). */
export function uniqueEvents(evs: readonly StoredEvent[]): StoredEvent[] {
  const seen = new Set<number>();
  return evs.filter((e) => !seen.has(e.seq) && seen.add(e.seq));
}

export function isoTime(tsUs: number): string {
  return new Date(Math.floor(tsUs / 1000)).toISOString();
}

/** A duration as a reader wants it: "305 s", "12.5 s", "38.0 ms". */
export function seconds(us: number): string {
  if (Math.abs(us) < 1e6) return `${(us / 1000).toFixed(1)} ms`;
  const s = us / 1e6;
  return s >= 100 ? `${s.toFixed(0)} s` : `${s.toFixed(1)} s`;
}
