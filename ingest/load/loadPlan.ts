// How a load is dealt between its parse workers (ingest/load/workers.ts). Whole
// sources are dealt into shares of about equal bytes, each parsed on its
// worker. A source too large for that to balance is cut into parts
// (ingest/load/sourceParts.ts) dealt to the workers in turn, so both cores parse
// one file side by side; its parts' rows are put back in file order here (a
// PartChain), and their statistics and facts are added up into the source's.

import { formatByName } from "../formats/index.js";
import { lineStartsEvery } from "../inputs/lines.js";
import { timeOriginOf } from "../formats/log/dating.js";
import type { TimeTally } from "../formats/format.js";
import { MAX_KEPT_ERRORS, type LoadedStats, type LoadSource, type ParsedSource } from "./loadStream.js";
import { combineFacts } from "./sourceFacts.js";
import type { WaitingBatch } from "./runStore.js";
import type { PartJob, PartResult } from "./seamGate.js";
import { UnparsedShapes } from "../unparsedShapes.js";
import { addFileWideCounts, fileWideIssues, noFileWideCounts } from "./fileWideIssues.js";

export interface SplitOptions {
  /** A source is cut into parts from this size, when it is also more than half a worker's fair share. */
  splitBytes: number;
  /** Bytes per part. */
  partBytes: number;
}

/**
 * A file is cut from 128 MiB: below about that size, on two cores, reading it
 * whole on one worker is as fast and costs less CPU and memory than the parts'
 * second worker and their merge (bench:ingest BENCH_SPLIT=off, bench/RESULTS.md).
 * Parts of 8 MB: a worker's lookahead (PART_IN_FLIGHT batches) holds a few
 * of them, so the two workers stay busy while the merge takes the parts in order.
 */
export const DEFAULT_SPLIT: SplitOptions = { splitBytes: 128 * 1024 * 1024, partBytes: 8 * 1024 * 1024 };

export interface SplitSource {
  source: LoadSource;
  /** Its index among the cut sources. */
  stream: number;
  parts: number;
  /** Int32Array[parts]: lines of each part, -1 until counted. */
  counts: SharedArrayBuffer;
}

export interface LoadPlan {
  /** Whole sources, per worker. */
  shares: LoadSource[][];
  /** Parts, per worker, in file order per source. */
  jobs: PartJob[][];
  split: SplitSource[];
}

export function planLoad(sources: readonly LoadSource[], workers: number, opts: SplitOptions): LoadPlan {
  const total = sources.reduce((n, s) => n + s.bytes, 0);
  const cut = (s: LoadSource): boolean =>
    // A plain dmesg file anchored by its runs is read whole: its runs are counted from its first line (ingest/formats/log/kernelClock.ts).
    workers > 1 && s.bytes >= opts.splitBytes && s.bytes * 2 * workers > total && formatByName(s.format).isSeam !== undefined && s.dating?.kernelRuns === undefined;
  const load = new Array<number>(workers).fill(0);
  const jobs: PartJob[][] = Array.from({ length: workers }, () => []);
  const split: SplitSource[] = [];
  let turn = 0;
  for (const source of sources.filter(cut)) {
    const starts = lineStartsEvery(source.plainPath, source.bytes, opts.partBytes);
    const stream = split.length;
    starts.forEach((startByte, index) => {
      const endByte = index + 1 < starts.length ? starts[index + 1]! : null;
      const w = turn++ % workers;
      load[w]! += (endByte ?? source.bytes) - startByte;
      jobs[w]!.push({ stream, source, index, startByte, endByte });
    });
    const counts = new SharedArrayBuffer(4 * starts.length);
    new Int32Array(counts).fill(-1);
    split.push({ source, stream, parts: starts.length, counts });
  }
  const shares: LoadSource[][] = Array.from({ length: workers }, () => []);
  for (const s of sources.filter((x) => !cut(x)).sort((a, b) => b.bytes - a.bytes)) {
    const lightest = load.indexOf(Math.min(...load));
    load[lightest]! += s.bytes;
    shares[lightest]!.push(s);
  }
  return { shares, jobs, split };
}

/** The rows of one cut source, put back in file order as its parts' batches come, with its statistics and facts. */
export class PartChain {
  private readonly byPart: WaitingBatch[][];
  private readonly results: PartResult[] = [];

  constructor(readonly split: SplitSource) {
    this.byPart = Array.from({ length: split.parts }, () => []);
  }

  rows(part: number, batch: WaitingBatch): void {
    this.byPart[part]!.push(batch);
  }

  partDone(result: PartResult): void {
    this.results[result.index] = result;
  }

  /** The whole source, once every part is done; `sha256` is the file's, hashed apart from its parts. */
  parsed(sha256: string): ParsedSource {
    const facts = combineFacts(this.results.map((r) => r.facts), sha256, this.split.source.bytes);
    return { stats: combineParts(this.split.source, this.results), facts, batches: this.byPart.flat() };
  }
}

/** A cut source's statistics from its parts', as one reading of the whole file gives them. */
export function combineParts(source: LoadSource, parts: readonly PartResult[]): LoadedStats {
  const shapes = new UnparsedShapes();
  const tallies: TimeTally[] = [];
  const ranks = new Set<string>();
  const total: LoadedStats = { ...parts[0]!.stats, lines: 0, events: 0, unparsed: 0, inferred: 0, errors: [], errorCount: 0, firstTsUs: null, lastTsUs: null };
  const fileWide = noFileWideCounts();
  for (const { stats, shapes: partShapes, tally, fileWide: partCounts } of parts) {
    total.lines += stats.lines;
    total.events += stats.events;
    total.unparsed += stats.unparsed;
    total.inferred += stats.inferred;
    total.errorCount += stats.errorCount;
    for (const e of stats.errors) if (total.errors.length < MAX_KEPT_ERRORS) total.errors.push(e);
    for (const r of stats.ranks) ranks.add(r);
    shapes.addPart(partShapes);
    if (tally !== null) tallies.push(tally);
    addFileWideCounts(fileWide, partCounts);
  }
  const issues = fileWideIssues(fileWide);
  total.errorCount += issues.length;
  total.errors.push(...issues);
  total.errors.sort((a, b) => a.line - b.line);
  total.ranks = [...ranks].sort();
  total.unparsedShapes = shapes.top();
  total.timeOrigin = tallies.length > 0 ? timeOriginOf(tallies, source.dating ?? undefined) : null;
  return total;
}
