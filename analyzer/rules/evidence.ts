// What the rules read: typed, cached views over one incident database. Rules
// ask for the event kinds they need (indexed reads, no full scans) and turn
// the events they keep into witness lines with their provenance.

import type { IncidentDb } from "../../ingest/store/db.js";
import { getMetaJson } from "../../ingest/store/db.js";
import { eventBySeq, eventCount, eventsOfKind, listSources, type SourceRow, type StoredEvent } from "../../ingest/store/queries.js";
import type { WitnessLine } from "./finding.js";
import { rankLabel } from "../model/ranks.js";
import { RunConfig } from "./config.js";

export class Evidence {
  private readonly byKind = new Map<string, StoredEvent[]>();
  private sourceRows: SourceRow[] | undefined;
  private sourceById: Map<number, SourceRow> | undefined;
  private runConfig: RunConfig | undefined;
  private hostQualifiedRoles: Set<string> | undefined;

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

  /** Events of several kinds merged in seq order. */
  ofKinds(...kinds: string[]): StoredEvent[] {
    return kinds.flatMap((k) => this.of(k)).sort((a, b) => a.seq - b.seq);
  }

  has(kind: string): boolean {
    if (this.byKind.has(kind)) return this.byKind.get(kind)!.length > 0;
    return this.db.prepare("SELECT 1 FROM events WHERE kind = ? LIMIT 1").get(kind) !== undefined;
  }

  event(seq: number): StoredEvent | undefined {
    return eventBySeq(this.db, seq);
  }

  /** Distinct rooms with at least one event of the role. */
  roomCount(role: string): number {
    const row = this.db.prepare("SELECT COUNT(DISTINCT room) AS n FROM events WHERE role = ? AND room IS NOT NULL").get(role) as { n: number };
    return row.n;
  }

  /** The last time anything was logged. */
  endUs(): number {
    const row = this.db.prepare("SELECT MAX(ts_us) AS t FROM events").get() as { t: number | null };
    return row.t ?? 0;
  }

  eventCount(): number {
    return eventCount(this.db);
  }

  sources(): SourceRow[] {
    this.sourceRows ??= listSources(this.db);
    return this.sourceRows;
  }

  source(id: number): SourceRow | undefined {
    this.sourceById ??= new Map(this.sources().map((s) => [s.id, s]));
    return this.sourceById.get(id);
  }

  witness(ev: StoredEvent): WitnessLine {
    return { seq: ev.seq, source: this.source(ev.sourceId)?.path ?? `source#${ev.sourceId}`, line: ev.line, text: ev.text };
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
   * The rank an event belongs to, labelled as the model labels its violations
   * ("decode/tp3", "decode/pp1/tp3"), with the host in front ("d1/decode/tp3")
   * when two hosts of one role reuse the same TP numbers (two decode instances).
   */
  rank(ev: Pick<StoredEvent, "host" | "role" | "pp" | "tp">): string {
    const role = ev.role ?? "unknown";
    const qualify = this.hostQualified().has(role);
    if (ev.tp !== null) return rankLabel(ev.host, role, ev.pp, ev.tp, qualify);
    // A record with no TP tag (a thread's traceback, a tokenizer line) names only its role.
    return qualify && ev.host ? `${ev.host}/${role}` : role;
  }

  private hostQualified(): Set<string> {
    if (this.hostQualifiedRoles) return this.hostQualifiedRoles;
    const rows = this.db
      .prepare("SELECT role, tp, COUNT(DISTINCT host) AS hosts FROM events WHERE role IS NOT NULL AND host IS NOT NULL GROUP BY role, tp")
      .all() as { role: string; tp: number | null; hosts: number }[];
    this.hostQualifiedRoles = new Set(rows.filter((r) => r.hosts > 1).map((r) => r.role));
    return this.hostQualifiedRoles;
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
