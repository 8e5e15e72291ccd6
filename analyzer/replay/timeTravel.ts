// The model state at any point of an incident: the nearest snapshot at or
// before the point, restored, plus a forward replay of the events after it.
// Plain functions over an open database; what they need between calls (the
// profile, the event reader, the snapshot index) is kept per database handle
// and rebuilt when the events' fingerprint changes.

import type { ModelStateView, ReplayModel } from "../model/api.js";
import { createModel, restoreModel, type ModelOptions } from "../model/index.js";
import { getMeta, type IncidentDb } from "../../store/db.js";
import { EventReader } from "../../store/blocks/eventCursor.js";
import { eventTime } from "../../store/read/seqs.js";
import { lastSeqAtOrBefore, lastSeqAtOrBeforeTime } from "../../store/read/seqs.js";
import { eventRefs, type EventRef } from "./eventRefs.js";
import { inferenceOf, withInferred, type Inference } from "./inferredState.js";
import { eventsFingerprint } from "./fingerprint.js";
import { modelOptions } from "./modelOptions.js";
import { selectProfile, type ProfileChoice } from "./profileSelection.js";
import { pageBytesFor, runModel, storedPageBytes } from "./replay.js";
import { SNAPSHOTS_META, SnapshotSet } from "./snapshots.js";

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
  /** The dumped pages' bytes, handed to the model with their records (replay.ts storedPageBytes). */
  pageBytes: ReadonlyMap<string, Uint8Array>;
  snapshots: SnapshotSet;
  /** The stored snapshots' meta when this was built: a replay under another profile replaces them. */
  snapshotsMeta: string | undefined;
  /** The model of the last query and where it stands, so stepping forward replays one event, not a snapshot's worth. */
  position: { seq: number; model: ReplayModel } | null;
  /** What later lines imply about earlier state (inferredState.ts), read on first use. */
  inference: Inference | null;
}

const timelines = new WeakMap<IncidentDb, Timeline>();

/** The profile, event reader and snapshots of `db` for a flag, built on first use. */
export function timeline(db: IncidentDb, profileFlag?: string): Timeline {
  const fingerprint = eventsFingerprint(db);
  const known = timelines.get(db);
  if (known && known.fingerprint === fingerprint && known.profileFlag === profileFlag && known.snapshotsMeta === getMeta(db, SNAPSHOTS_META)) {
    return known;
  }
  const choice = selectProfile(db, profileFlag);
  const snapshots = SnapshotSet.find(db, fingerprint, choice.profile) ?? runModel(db, choice).snapshots;
  const made: Timeline = {
    fingerprint,
    profileFlag,
    choice,
    options: modelOptions(db),
    reader: new EventReader(db),
    pageBytes: storedPageBytes(db),
    snapshots,
    snapshotsMeta: getMeta(db, SNAPSHOTS_META),
    position: null,
    inference: null,
  };
  timelines.set(db, made);
  return made;
}

/** The seq a point names: the event itself, or the last event at or before the time. Null before the first event. */
export function seqAt(db: IncidentDb, at: At): number | null {
  if ("seq" in at) return lastSeqAtOrBefore(db, at.seq);
  return lastSeqAtOrBeforeTime(db, at.tsUs);
}

/**
 * The model after the event at (or last before) `at`, as a view, with the
 * state later lines imply at that moment marked inferred (inferredState.ts).
 */
export function stateAt(db: IncidentDb, at: At, opts: StateAtOptions = {}): ModelStateView {
  const line = timeline(db, opts.profileFlag);
  const seq = seqAt(db, at);
  const view = viewAt(line, seq, opts.room);
  const atUs = "tsUs" in at ? at.tsUs : seq === null ? -Infinity : eventTime(db, seq) ?? -Infinity;
  line.inference ??= inferenceOf(db, line.options, line.choice.profile.waitingTimeoutS);
  return withInferred(view, line.inference, seq ?? -1, atUs, opts.room);
}

/** The view after `seq` (before the first event when null), of one room or all. */
export function viewAt(line: Timeline, seq: number | null, room?: string): ModelStateView {
  const filter = room === undefined ? undefined : { room };
  const profile = line.choice.profile;
  if (seq === null) return createModel(profile, line.options).view(filter);
  const snap = line.snapshots.nearest(seq);
  const from = line.position;
  let model: ReplayModel;
  let after: number;
  if (from !== null && from.seq <= seq && (snap === null || snap <= from.seq)) {
    model = from.model;
    after = from.seq;
  } else {
    model = snap === null ? createModel(profile, line.options) : restoreModel(profile, line.snapshots.state(snap), line.pageBytes);
    after = snap ?? -Infinity;
  }
  const pages = line.pageBytes;
  line.reader.forEach(after + 1, seq, (ev) => {
    if (pages.size === 0) model.apply(ev);
    else model.apply(ev, pageBytesFor(pages, ev));
  });
  line.position = { seq, model };
  return model.view(filter);
}

/** Every seq a view names as the last change of some piece of state, resolved to its event (file, line, text). */
export function provenance(db: IncidentDb, view: ModelStateView): Map<number, EventRef> {
  const seqs: number[] = [view.atSeq];
  for (const r of view.rooms) for (const c of [r.prefill.changedAt, r.decode.changedAt, r.inferred?.seq ?? null]) if (c !== null) seqs.push(c);
  for (const p of view.pages) {
    seqs.push(p.changedAt);
    if (p.lastWriter) seqs.push(p.lastWriter.seq);
  }
  for (const q of view.queues) seqs.push(q.changedAt);
  for (const b of view.bootstrapThreads) if (b.changedAt !== null) seqs.push(b.changedAt);
  for (const h of view.hicacheSlots) seqs.push(h.changedAt);
  for (const c of view.collectives) seqs.push(c.changedAt);
  for (const d of view.collectiveDivergences) seqs.push(d.changedAt);
  for (const d of view.dumpedPages) seqs.push(d.seq, ...(d.pair ? [d.pair.prefillSeq] : []));
  return eventRefs(db, seqs.filter((s) => s >= 0));
}
