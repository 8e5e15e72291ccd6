// A full replay: every stored event, in seq order, through the reference
// model of the chosen profile (a dumped page's record with its bytes, read
// here through the store, for the page kernels). It returns the model's raw violations with
// their witness events resolved to file and line, the checks' coverage (what
// the evidence allowed, and what it did not), and how fast it ran; on the way
// it leaves snapshots for time travel, unless valid ones are already stored.

import type { CheckCoverage, ModelEvent, Violation } from "../model/api.js";
import type { PageKernels } from "../model/pageKernels.js";
import { pageBytesKey, type ModelDumpedPage } from "../model/pagePath.js";
import { PAGE_DUMP_KIND } from "../../domain/kinds.js";
import { allPages } from "../../store/pages.js";
import { createModel } from "../model/index.js";
import type { IncidentDb } from "../../store/db.js";
import { eventBlocks } from "../../store/blocks/eventBlocks.js";
import { eventBySeq } from "../../store/read/events.js";
import { readOnce, type BlockReader, type Reading } from "../../store/blocks/pass.js";
import { eventRefs, type EventRef } from "./eventRefs.js";
import { eventsFingerprint } from "./fingerprint.js";
import { modelOptions } from "./modelOptions.js";
import { selectProfile, type ProfileChoice } from "./profileSelection.js";
import { SNAPSHOT_EVERY, snapshotSpacing, SnapshotSet, type SnapshotInfo } from "./snapshots.js";
import type { LandingColumns } from "../model/transferPairing.js";

export interface ReplayOptions {
  /** A --profile flag (profileFlag.ts); ignored when `choice` is given. */
  profileFlag?: string;
  /** A profile already chosen (by selectProfile). */
  choice?: ProfileChoice;
  /** Events between snapshots when they are (re)built; SNAPSHOT_EVERY by default. */
  snapshotEvery?: number;
  /** Store the snapshots taken (the derive step only); by default they stay in memory. */
  storeSnapshots?: boolean;
  /** Called now and then with the events done so far and the total. */
  onProgress?: (phase: "replay", done: number, total: number) => void;
}

export interface ReplayViolation extends Omit<Violation, "witness"> {
  witness: EventRef[];
}

export interface ReplaySummary {
  choice: ProfileChoice;
  events: number;
  firstSeq: number | null;
  lastSeq: number | null;
  violations: ReplayViolation[];
  coverage: CheckCoverage[];
  snapshots: SnapshotInfo;
  /** Every dumped page through the kernels, in seq order (analyzer/model/pageKernels.ts). */
  pages: PageKernels<ModelDumpedPage>;
  /** Every post the model landed, with the event that landed it, in landing order. */
  landings: LandingColumns;
  timing: {
    /** The replay proper, straight from the event blocks, snapshots included. */
    replayMs: number;
    eventsPerSecond: number;
  };
}

const PROGRESS_EVERY = 1 << 18;

export function replayIncident(db: IncidentDb, opts: ReplayOptions = {}): ReplaySummary {
  return readOnce(db, replayReading(db, opts));
}

/**
 * replayIncident as one reader of a pass over the blocks shared with other
 * stages (store/blocks/pass.ts), so that an analysis decodes each block once
 * for the model and the rules. The summary's timing is then the shared pass's.
 */
export function replayReading(db: IncidentDb, opts: ReplayOptions = {}): Reading<ReplaySummary> {
  const choice = opts.choice ?? selectProfile(db, opts.profileFlag);
  const t1 = performance.now();
  const model = modelReading(db, choice, opts);
  const finish = (): ReplaySummary => {
    const run = model.finish();
    const replayMs = performance.now() - t1;
    return {
      choice,
      events: run.events,
      firstSeq: run.firstSeq,
      lastSeq: run.lastSeq,
      violations: resolveWitnesses(db, run.violations),
      coverage: run.coverage,
      snapshots: run.snapshots.info,
      pages: run.pages,
      landings: run.landings,
      timing: { replayMs, eventsPerSecond: replayMs > 0 ? (run.events / replayMs) * 1000 : 0 },
    };
  };
  return { readers: model.readers, finish };
}

export interface ModelRun {
  /** The page kernels after the last event: every dumped page's verdict and pair. */
  pages: PageKernels<ModelDumpedPage>;
  landings: LandingColumns;
  events: number;
  firstSeq: number | null;
  lastSeq: number | null;
  violations: Violation[];
  coverage: CheckCoverage[];
  snapshots: SnapshotSet;
}

/**
 * Every event through a fresh model. Snapshots are taken on the way unless a
 * valid set is stored already; they are kept in memory, or stored with
 * `storeSnapshots`.
 */
export function runModel(db: IncidentDb, choice: ProfileChoice, opts: ModelRunOptions = {}): ModelRun {
  return readOnce(db, modelReading(db, choice, opts));
}

type ModelRunOptions = Pick<ReplayOptions, "onProgress" | "snapshotEvery" | "storeSnapshots">;

/** runModel as a reader of every event in a pass over the blocks. */
function modelReading(db: IncidentDb, choice: ProfileChoice, opts: ModelRunOptions): Reading<ModelRun> {
  const fingerprint = eventsFingerprint(db);
  const existing = SnapshotSet.find(db, fingerprint, choice.profile);
  const every = opts.snapshotEvery ?? SNAPSHOT_EVERY;
  const writer = existing ? null : SnapshotSet.writer(db, fingerprint, choice.profile, every);
  const model = createModel(choice.profile, modelOptions(db));
  const violations: Violation[] = [];
  const pages = storedPageBytes(db);
  const blocks = eventBlocks(db);
  const total = blocks.events;
  let done = 0;
  // Countdowns to the next snapshot and progress report: a division per event was visible in profiles.
  let toSnapshot = writer === null ? Infinity : every;
  let toProgress = PROGRESS_EVERY;
  const reader: BlockReader = {
    kinds: null,
    visit(ev) {
      const found = pages.size === 0 ? model.apply(ev) : model.apply(ev, pageBytesFor(pages, ev));
      if (found.length > 0) for (const v of found) violations.push(v);
      done++;
      if (--toSnapshot === 0) {
        writer!.add(ev.seq, model.snapshot());
        toSnapshot = snapshotSpacing(every, model.liveState());
      }
      if (--toProgress === 0) {
        opts.onProgress?.("replay", done, total);
        toProgress = PROGRESS_EVERY;
      }
    },
  };
  const finish = (): ModelRun => {
    // The reader sees every event of every block, in order: the first and last are the blocks' ends (reading them per event cost a visible share).
    const firstSeq = done > 0 ? blocks.list[0]!.firstSeq : null;
    const lastSeq = done > 0 ? blocks.list.at(-1)!.lastSeq : null;
    const lastTsUs = lastSeq === null ? 0 : eventBySeq(db, lastSeq)!.tsUs;
    for (const v of model.finish(lastTsUs)) violations.push(v);
    const snapshots = writer ? writer.finish(opts.storeSnapshots === true) : existing!;
    return { events: done, firstSeq, lastSeq, violations, coverage: model.coverage(), snapshots, pages: model.pageKernels(), landings: model.landings() };
  };
  return { readers: [reader], finish };
}

/** The bytes of every dumped page the store holds, by the index record that names them (pagePath.ts pageBytesKey). */
export function storedPageBytes(db: IncidentDb): Map<string, Uint8Array> {
  return new Map(allPages(db).map((p) => [pageBytesKey(p.sourceId, p.line), p.bytes]));
}

/** A `page.dump` record's bytes, for the model; undefined for every other event. */
export function pageBytesFor(pages: ReadonlyMap<string, Uint8Array>, ev: ModelEvent): Uint8Array | undefined {
  return ev.kind === PAGE_DUMP_KIND ? pages.get(pageBytesKey(ev.sourceId, ev.line)) : undefined;
}

/** Violations with each witness seq replaced by the event it names (file, line, text). */
export function resolveWitnesses(db: IncidentDb, raw: readonly Violation[]): ReplayViolation[] {
  const refs = eventRefs(db, raw.flatMap((v) => [v.seq, ...v.witness]));
  return raw.map((v) => ({ ...v, witness: v.witness.map((s) => refs.get(s)).filter((r): r is EventRef => r !== undefined) }));
}
