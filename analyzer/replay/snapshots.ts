// Model snapshots every K events (further apart while the model holds a large
// live state), so that the state at any event is the nearest snapshot plus a
// short forward replay. A snapshot is the model's own
// `snapshot()` value in the flat byte form of snapshotCodec.ts. A set of snapshots is valid for one
// events fingerprint and one profile; meta records both. The derive step after
// ingest stores the set of the profile the evidence chooses; a replay under
// another profile, or of events changed since, keeps its own in memory.

import type { Profile } from "../model/api.js";
import type { IncidentDb } from "../../store/db.js";
import { getMetaJson } from "../../store/db.js";
import { snapshotSeqs, snapshotState } from "../../store/read/derived.js";
import { replaceSnapshots } from "../../store/writeDerived.js";
import { decodeSnapshot, encodeSnapshot } from "./snapshotCodec.js";
import { countAtOrBefore } from "./seqSearch.js";

/**
 * Events between snapshots: a stateAt replays at most this many events after
 * restoring one (a few ms at replay speed), and a snapshot this many events
 * apart stays small beside the events it covers.
 */
export const SNAPSHOT_EVERY = 4_096;

/**
 * Events per unit of live state between snapshots. A snapshot's size grows
 * with the model's live state (rooms, tracked pages, writes in flight), so
 * when the state is large (thousands of rooms stuck in a wedge) a fixed
 * spacing would store more snapshot than events; spacing snapshots at least
 * this many events per unit bounds their storage per event. A state of a few
 * thousand keeps SNAPSHOT_EVERY.
 */
const EVENTS_PER_LIVE_UNIT = 2;

/** Events from a snapshot to the next: at least `every`, more when the live state is large. */
export function snapshotSpacing(every: number, liveState: number): number {
  return Math.max(every, EVENTS_PER_LIVE_UNIT * liveState);
}

/**
 * Bump when the encoding below or the model's snapshot changes, or when
 * replays read events differently: stored snapshots of another format are
 * not read, and the next replay rebuilds them.
 */
const SNAPSHOT_FORMAT = "flat-zstd-9";
export const SNAPSHOTS_META = "snapshots";

interface SnapshotsMeta {
  fingerprint: string;
  profile: string;
  format: string;
  every: number;
  count: number;
  bytes: number;
}

export interface SnapshotInfo {
  every: number;
  count: number;
  bytes: number;
  /** False when this replay had to (re)build them. */
  reused: boolean;
  /** False when they live in memory only (every replay but the derive step's). */
  stored: boolean;
}

/** A profile as a stable key: field order does not matter. */
export function profileKey(profile: Profile): string {
  const sorted = Object.fromEntries(Object.entries(profile).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return JSON.stringify(sorted);
}

/** The snapshots of one (fingerprint, profile): in the store, or in memory. */
export class SnapshotSet {
  private readonly seqs: number[];

  private constructor(
    private readonly db: IncidentDb,
    private readonly memory: Map<number, Buffer> | null,
    seqs: number[],
    readonly info: SnapshotInfo,
  ) {
    this.seqs = seqs;
  }

  /** The stored set for this fingerprint and profile, or null when there is none (or it is stale). */
  static find(db: IncidentDb, fingerprint: string, profile: Profile): SnapshotSet | null {
    const meta = getMetaJson<SnapshotsMeta>(db, SNAPSHOTS_META);
    if (!meta || meta.fingerprint !== fingerprint || meta.profile !== profileKey(profile) || meta.format !== SNAPSHOT_FORMAT) return null;
    const seqs = snapshotSeqs(db);
    if (seqs.length !== meta.count) return null;
    return new SnapshotSet(db, null, seqs, { every: meta.every, count: meta.count, bytes: meta.bytes, reused: true, stored: true });
  }

  /** The seq of the latest snapshot at or before `seq`, or null when none is that early. */
  nearest(seq: number): number | null {
    const n = countAtOrBefore(this.seqs.length, (i) => this.seqs[i]!, seq);
    return n === 0 ? null : this.seqs[n - 1]!;
  }

  /** The decoded model state of the snapshot taken after `seq`. */
  state(seq: number): unknown {
    const blob = this.memory ? this.memory.get(seq) : snapshotState(this.db, seq);
    if (blob === undefined) throw new Error(`no snapshot after seq ${seq}`);
    return decodeSnapshot(blob);
  }

  /** Collects snapshots during a replay, then stores them or keeps them in memory. */
  static writer(db: IncidentDb, fingerprint: string, profile: Profile, every: number): SnapshotWriter {
    return new SnapshotWriter(db, fingerprint, profile, every);
  }

  /** Used by SnapshotWriter. */
  static made(db: IncidentDb, memory: Map<number, Buffer> | null, seqs: number[], info: SnapshotInfo): SnapshotSet {
    return new SnapshotSet(db, memory, seqs, info);
  }
}

export class SnapshotWriter {
  private readonly blobs = new Map<number, Buffer>();
  private bytes = 0;

  constructor(
    private readonly db: IncidentDb,
    private readonly fingerprint: string,
    private readonly profile: Profile,
    private readonly every: number,
  ) {}

  add(seq: number, state: unknown): void {
    const blob = encodeSnapshot(state);
    this.blobs.set(seq, blob);
    this.bytes += blob.byteLength;
  }

  /** With `store`, replaces the stored snapshots with these (the derive step); else keeps them in memory. */
  finish(store: boolean): SnapshotSet {
    const seqs = [...this.blobs.keys()];
    const info = { every: this.every, count: seqs.length, bytes: this.bytes, reused: false, stored: store };
    if (!store) return SnapshotSet.made(this.db, this.blobs, seqs, info);
    const meta: SnapshotsMeta = {
      fingerprint: this.fingerprint,
      profile: profileKey(this.profile),
      format: SNAPSHOT_FORMAT,
      every: this.every,
      count: seqs.length,
      bytes: this.bytes,
    };
    replaceSnapshots(this.db, this.blobs, SNAPSHOTS_META, JSON.stringify(meta));
    return SnapshotSet.made(this.db, null, seqs, info);
  }
}
