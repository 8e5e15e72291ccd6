// The model state at any point of an incident: the nearest snapshot at or
// before the point, restored, plus a forward replay of the events after it.
// Plain functions over an open database; what they need between calls (the
// profile, the column cache, the snapshot index) is kept per database handle
// and rebuilt when the events' fingerprint changes.

import type { ModelStateView, ReplayModel } from "../model/api.js";
import { createModel, restoreModel, type ModelOptions } from "../model/index.js";
import type { IncidentDb } from "../../ingest/store/db.js";
import { EventColumns } from "./eventColumns.js";
import { eventRefs, type EventRef } from "./eventRefs.js";
import { EventReader } from "./eventReader.js";
import { eventsFingerprint } from "./fingerprint.js";
import { modelOptions } from "./modelOptions.js";
import { selectProfile, type ProfileChoice } from "./profileSelection.js";
import { runModel } from "./replay.js";
import { SnapshotSet } from "./snapshots.js";

/** A point of the incident: after the event `seq`, or after the last event at or before `tsUs`. */
export type At = { seq: number } | { tsUs: number };

export interface StateAtOptions {
  /** Only this room's rooms/pages in the view. */
  room?: string;
  /** A --profile flag; by default the profile is chosen from the incident's evidence. */
  profileFlag?: string;
}

export interface Timeline {
  fingerprint: string;
  profileFlag: string | undefined;
  choice: ProfileChoice;
  options: ModelOptions;
  reader: EventReader;
  snapshots: SnapshotSet;
}

const timelines = new WeakMap<IncidentDb, Timeline>();

/** The profile, column cache and snapshots of `db` for a flag, built on first use. */
export function timeline(db: IncidentDb, profileFlag?: string): Timeline {
  const fingerprint = eventsFingerprint(db);
  const known = timelines.get(db);
  if (known && known.fingerprint === fingerprint && known.profileFlag === profileFlag) return known;
  const choice = selectProfile(db, profileFlag);
  const columns = EventColumns.open(db);
  const snapshots =
    (db.readonly ? null : SnapshotSet.find(db, columns.fingerprint, choice.profile)) ?? runModel(db, choice, columns).snapshots;
  const made: Timeline = { fingerprint, profileFlag, choice, options: modelOptions(db), reader: new EventReader(db, columns), snapshots };
  timelines.set(db, made);
  return made;
}

/** The seq a point names: the event itself, or the last event at or before the time. Null before the first event. */
export function seqAt(db: IncidentDb, at: At): number | null {
  if ("seq" in at) {
    const seq = db.prepare("SELECT seq FROM events WHERE seq <= ? ORDER BY seq DESC LIMIT 1").pluck().get(at.seq) as number | undefined;
    return seq ?? null;
  }
  // Seq order is time order after clock alignment, so the latest time at or before tsUs ends the prefix.
  const seq = db.prepare("SELECT seq FROM events WHERE ts_us <= ? ORDER BY ts_us DESC, seq DESC LIMIT 1").pluck().get(at.tsUs) as number | undefined;
  return seq ?? null;
}

/** The model after the event at (or last before) `at`, as a view. */
export function stateAt(db: IncidentDb, at: At, opts: StateAtOptions = {}): ModelStateView {
  const line = timeline(db, opts.profileFlag);
  const seq = seqAt(db, at);
  const model = modelAt(line, seq);
  return model.view(opts.room === undefined ? undefined : { room: opts.room });
}

/** A model positioned after `seq` (fresh when seq is null: before the first event). */
export function modelAt(line: Timeline, seq: number | null): ReplayModel {
  const profile = line.choice.profile;
  if (seq === null) return createModel(profile, line.options);
  const snap = line.snapshots.nearest(seq);
  const model = snap ? restoreModel(profile, snap.state) : createModel(profile, line.options);
  line.reader.forEach(snap ? snap.seq + 1 : -Infinity, seq, (ev) => {
    model.apply(ev);
  });
  return model;
}

/** Every seq a view names as the last change of some piece of state, resolved to its event (file, line, text). */
export function provenance(db: IncidentDb, view: ModelStateView): Map<number, EventRef> {
  const seqs: number[] = [view.atSeq];
  for (const r of view.rooms) for (const c of [r.prefill.changedAt, r.decode.changedAt]) if (c !== null) seqs.push(c);
  for (const p of view.pages) {
    seqs.push(p.changedAt);
    if (p.lastWriter) seqs.push(p.lastWriter.seq);
  }
  for (const q of view.queues) seqs.push(q.changedAt);
  for (const b of view.bootstrapThreads) if (b.changedAt !== null) seqs.push(b.changedAt);
  for (const h of view.hicacheSlots) seqs.push(h.changedAt);
  for (const c of view.collectives) seqs.push(c.changedAt);
  return eventRefs(db, seqs.filter((s) => s >= 0));
}
