// The analysis's replay on the second core. An analysis is one pass over the
// blocks (store/blocks/pass.ts) in which the model and the rules' readers
// take every event; on one thread the model is about a third of it. Past
// REPLAY_BESIDE_EVENTS the model runs instead on a worker thread
// (replayWorker.ts) that reads the blocks itself, while the rules' pass runs
// here; the rules then wait for its evidence. Each block is decoded twice,
// once per thread, for a pass that ends sooner on two cores (bench/RESULTS.md
// "bench:analyze"). The evidence is the one replayIncident gives: the same
// model over the same events.

import { existsSync } from "node:fs";
import type { IncidentDb } from "../../store/db.js";
import type { BlockReader, Reading } from "../../store/blocks/pass.js";
import { eventCount } from "../../store/read/incident.js";
import { bundledEntry } from "../../store/packageFiles.js";
import { PageKernels } from "../model/pageKernels.js";
import type { ModelDumpedPage } from "../model/pagePath.js";
import type { ReplayEvidence } from "../rules/replayEvidence.js";
import { startAnsweringThread } from "../threadAnswer.js";
import type { ReplayWorkerData, ReplayWorkerMessage } from "./replayWorker.js";

const WORKER_URL = bundledEntry("replayWorker");

/** From this many events an analysis replays on a worker thread; below, the thread start costs more than it saves. */
export const REPLAY_BESIDE_EVENTS = 1_000_000;

/** Progress reports of the pass, in events. */
const PROGRESS_EVERY = 1 << 18;

export interface ReplayBesideOptions {
  profileFlag?: string;
  /** The pass's progress (the rules' side: the two sides read the same blocks at about the same pace). */
  onProgress?: (phase: "replay", done: number, total: number) => void;
}

/**
 * The replay's evidence from a worker thread, as a reading of the rules'
 * pass (it reads nothing there but, with `onProgress`, counts events for the
 * progress); null where the incident has no file of its own (in memory) or
 * the worker's module is missing, and the caller replays in its own pass.
 */
export function replayBeside(db: IncidentDb, opts: ReplayBesideOptions = {}): Reading<ReplayEvidence> | null {
  if (db.memory || !existsSync(WORKER_URL)) return null;
  const data: ReplayWorkerData = { dbPath: db.name, ...(opts.profileFlag !== undefined && { profileFlag: opts.profileFlag }) };
  const thread = startAnsweringThread<ReplayWorkerMessage>(WORKER_URL, data, "the replay");
  const readers: BlockReader[] = opts.onProgress ? [progressReader(eventCount(db), opts.onProgress)] : [];
  return {
    readers,
    finish() {
      const msg = thread.answer();
      return msg.dumped === null ? msg.evidence : { ...msg.evidence, pages: kernelsOf(msg.dumped) };
    },
  };
}

/** The page kernels over the pages the worker's model dumped, in the order it dumped them: the verdicts and pairs its own kernels made. */
function kernelsOf(dumped: readonly ModelDumpedPage[]): PageKernels<ModelDumpedPage> {
  const kernels = new PageKernels<ModelDumpedPage>();
  // The bytes crossed as Uint8Array; the store hands the model Buffers (better-sqlite3 blobs): viewed as one again, without a copy.
  for (const page of dumped) kernels.dump({ ...page, bytes: Buffer.from(page.bytes.buffer, page.bytes.byteOffset, page.bytes.byteLength) });
  return kernels;
}

function progressReader(total: number, onProgress: NonNullable<ReplayBesideOptions["onProgress"]>): BlockReader {
  let done = 0;
  let toProgress = PROGRESS_EVERY;
  return {
    kinds: null,
    visit() {
      done++;
      if (--toProgress === 0) {
        toProgress = PROGRESS_EVERY;
        onProgress("replay", done, total);
      }
    },
  };
}
