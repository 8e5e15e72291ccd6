// The global order (DESIGN.md "Canonical store") from the runs of the
// parsed sources (ingest/load/workers.ts): a k-way merge by aligned time,
// ties broken by source id then line (ingest/load/merge.ts). A run holds its
// source's rows in file order at their own times and with only what their
// lines say of who wrote them; each batch is given here, as the merge reaches
// it, what was decided after the parse: the source's id, its host, role and
// rank where its lines name none (as the parse context would have given
// them: ingest/formats/log/logParser.ts newEvent, ingest/formats/metrics/series.ts
// makeSeries), and the clock offset of the row's host. An offset is the same
// for every row of one host, so it never changes a run's order: the merge
// only ever takes a run's head.

import type { FormatName } from "../formats/format.js";
import { isLogFormat, prefersSourceHost } from "../formats/index.js";
import { NUMBER_WIDTH, STRING_WIDTH, TS_TIMELESS, unpackBatch, type RowBatch, type RowSink } from "../../store/rows.js";
import type { RunStore, WaitingBatch } from "./runStore.js";
import { keyBefore, MergeHeap, type MergeKey } from "./merge.js";
import { SOURCE_RANK, type SourceIdentity } from "../sources/sourceIdentity.js";
import { roleOfName } from "../inputs/pathIdentity.js";
import type { Role } from "../../domain/vocabulary.js";

/** A parsed source's run and what was decided of the source after its parse. */
export interface Run {
  batches: WaitingBatch[];
  format: FormatName;
  /** The source's id in the incident. */
  sourceId: number;
  identity: SourceIdentity;
  /** Clock domain of its rows that name no host of their own. */
  domain: string;
}

/** A source's first and last aligned times of its records that have one. */
export interface RunSpan {
  firstTsUs: number | null;
  lastTsUs: number | null;
}

/** Rows between two progress reports of the merge. */
const PROGRESS_ROWS = 1 << 16;

/** Rows of `runs` handed to `sink` in the global order; returns each run's span. */
export function mergeRuns(runs: readonly Run[], store: RunStore, offsets: Record<string, number>, sink: RowSink, onProgress: (rows: number) => void): RunSpan[] {
  const cursors = runs.map((r) => new RunCursor(r, store, offsets, sink));
  const heap = new MergeHeap<RunCursor>((c) => c);
  onProgress(0);
  for (const c of cursors) if (c.advance()) heap.push(c);
  let rows = 0;
  while (heap.size > 0) {
    const top = heap.peek()!;
    const second = heap.runnerUp();
    let alive = true;
    // The head run keeps the lead for a while, most often: its rows go out without touching the heap.
    do {
      sink.addRow(top.batch, top.row);
      if (++rows % PROGRESS_ROWS === 0) onProgress(rows);
      alive = top.advance();
    } while (alive && (second === undefined || keyBefore(top, second)));
    if (alive) heap.topChanged();
    else heap.pop();
  }
  onProgress(rows);
  return cursors.map((c) => ({ firstTsUs: c.firstTsUs, lastTsUs: c.lastTsUs }));
}

/** A run's head row, as the merge reads it. */
class RunCursor implements MergeKey {
  tsUs = 0;
  line = 0;
  readonly sourceId: number;
  firstTsUs: number | null = null;
  lastTsUs: number | null = null;
  batch!: RowBatch;
  row = -1;
  private next = 0;
  private readonly batches: (WaitingBatch | undefined)[];
  private readonly ownHost: string | null;
  private readonly ownOffset: number;
  private readonly hostFirst: boolean;
  private readonly ranked: boolean;
  /** The role of each host of a stream of several machines' lines (null: none): what its own lines name, else its name. */
  private readonly roleOfHost = new Map<string, Role | null>();

  constructor(
    private readonly run: Run,
    private readonly store: RunStore,
    private readonly offsets: Record<string, number>,
    private readonly sink: RowSink,
  ) {
    this.sourceId = run.sourceId;
    this.batches = run.batches;
    this.ownHost = run.identity.host;
    this.ownOffset = offsets[run.domain] ?? 0;
    this.hostFirst = prefersSourceHost(run.format) && !run.identity.hostPerLine;
    this.ranked = isLogFormat(run.format);
  }

  advance(): boolean {
    while (++this.row >= (this.batch?.length ?? 0)) {
      const waiting = this.batches[this.next];
      if (waiting === undefined) return false;
      // Dropped once taken: a run's memory goes as the merge passes it.
      this.batches[this.next++] = undefined;
      const batch = unpackBatch(this.store.take(waiting));
      this.complete(batch);
      this.batch = batch;
      this.row = -1;
    }
    const p = this.row * NUMBER_WIDTH;
    this.tsUs = this.batch.numbers[p]!;
    this.line = this.batch.numbers[p + 2]!;
    return true;
  }

  /**
   * In a stream of several machines' lines, the role a host's own lines name
   * (its `server_args` line, a PD batch line), else the one its name gives
   * (`sglang-prefill-0`), else the source's, as a ref into the batch's
   * strings: each host's name is read once a run, each role added once a batch.
   */
  private roleRefOf(host: string, strings: string[], batchRoleRefs: Map<string, number>, sourceRoleRef: number): number {
    let role = this.roleOfHost.get(host);
    if (role === undefined) this.roleOfHost.set(host, (role = this.run.identity.hostRoles[host] ?? roleOfName(host) ?? null));
    if (role === null) return sourceRoleRef;
    let ref = batchRoleRefs.get(role);
    if (ref === undefined) batchRoleRefs.set(role, (ref = strings.push(role) - 1));
    return ref;
  }

  /** Gives a batch's rows what was decided after the parse; writes its texts (keyed by source and line, not by order). */
  private complete(batch: RowBatch): void {
    for (const t of batch.texts) t.sourceId = this.sourceId;
    this.sink.addTexts(batch.texts);
    const { numbers, stringRefs, strings } = batch;
    const { ownHost, hostFirst } = this;
    const role = this.run.identity.role;
    const rank = this.run.identity.rank;
    let ownHostRef = -1;
    let roleRef = -1;
    if (ownHost !== null) ownHostRef = strings.push(ownHost) - 1;
    if (role !== null) roleRef = strings.push(role) - 1;
    let lastRef = -2;
    let hostRef = -1;
    let hostRoleRef = roleRef;
    const batchRoleRefs = new Map<string, number>();
    let offset = 0;
    for (let i = 0; i < batch.length; i++) {
      const p = i * NUMBER_WIDTH;
      const q = i * STRING_WIDTH;
      const ref = stringRefs[q]!;
      if (ref !== lastRef) {
        lastRef = ref;
        const own = ref < 0 ? null : strings[ref]!;
        const host = hostFirst ? (ownHost ?? own) : (own ?? ownHost);
        hostRef = host === own ? ref : ownHostRef;
        offset = host !== ownHost ? (this.offsets[host!] ?? 0) : this.ownOffset;
        hostRoleRef = this.run.identity.hostPerLine && host !== null && host !== ownHost ? this.roleRefOf(host, strings, batchRoleRefs, roleRef) : roleRef;
      }
      stringRefs[q] = hostRef;
      if (stringRefs[q + 1] === -1) stringRefs[q + 1] = hostRoleRef;
      numbers[p + 1] = this.sourceId;
      const tsUs = (numbers[p] = numbers[p]! + offset);
      if (this.ranked) {
        if (numbers[p + 3] === SOURCE_RANK) numbers[p + 3] = rank?.dp ?? NaN;
        if (numbers[p + 5] === SOURCE_RANK) numbers[p + 5] = rank?.tp ?? NaN;
      }
      if (numbers[p + 11] === TS_TIMELESS) continue;
      if (this.firstTsUs === null || tsUs < this.firstTsUs) this.firstTsUs = tsUs;
      if (this.lastTsUs === null || tsUs > this.lastTsUs) this.lastTsUs = tsUs;
    }
  }
}
