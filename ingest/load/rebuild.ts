// Adding sources to an incident that already has events: the stored events
// are re-timed with the new clock offsets and merged, source by source, with
// the new rows into rebuilt event blocks, so that `seq` stays the one
// global order. New rows arrive in order from the merge of the new sources'
// runs (ingest/load/runs.ts); before each, every stored row that comes
// earlier is written out.

import { keyBefore, MergeHeap, type MergeKey } from "./merge.js";
import { HOST_COL, LINE_COL, NUMBER_WIDTH, TS_COL, type RowBatch } from "../../store/rows.js";
import type { RowSink } from "../../store/rows.js";
import type { TextBlock } from "../../store/eventText.js";
import type { IncidentWriter, StoredSourceRef } from "../../store/writer.js";

class StoredSourceCursor implements MergeKey {
  tsUs = 0;
  sourceId: number;
  line = 0;
  private page: unknown[][] = [];
  private pos = -1;
  private readonly pages: Generator<unknown[][]>;

  constructor(
    writer: IncidentWriter,
    private readonly source: StoredSourceRef,
    private readonly shiftOf: (host: string | null, source: StoredSourceRef) => number,
  ) {
    this.sourceId = source.id;
    this.pages = writer.previousEvents(source.id);
  }

  get row(): unknown[] {
    return this.page[this.pos]!;
  }

  advance(): boolean {
    if (++this.pos >= this.page.length) {
      const next = this.pages.next();
      if (next.done) return false;
      this.page = next.value;
      this.pos = 0;
    }
    const row = this.row;
    row[TS_COL] = (row[TS_COL] as number) + this.shiftOf(row[HOST_COL] as string | null, this.source);
    this.tsUs = row[TS_COL] as number;
    this.line = row[LINE_COL] as number;
    return true;
  }
}

export class StoredEventsMerger implements RowSink {
  private readonly heap = new MergeHeap<StoredSourceCursor>((c) => c);
  private readonly probe: MergeKey = { tsUs: 0, sourceId: 0, line: 0 };

  /**
   * `oldOffsets` were applied when the events were stored, `newOffsets` apply
   * now; a row moves by the difference for its clock domain.
   */
  constructor(
    private readonly writer: IncidentWriter,
    sources: StoredSourceRef[],
    oldOffsets: Record<string, number>,
    newOffsets: Record<string, number>,
  ) {
    const shift = (host: string | null, s: StoredSourceRef): number => {
      const domain = host ?? s.host ?? `src:${s.path}`;
      return (newOffsets[domain] ?? 0) - (oldOffsets[domain] ?? 0);
    };
    for (const s of sources) {
      const c = new StoredSourceCursor(writer, s, shift);
      if (c.advance()) this.heap.push(c);
    }
  }

  /** Writes the stored rows that come before the new row, then the new row. */
  addRow(batch: RowBatch, i: number): void {
    const at = i * NUMBER_WIDTH;
    this.probe.tsUs = batch.numbers[at]!;
    this.probe.sourceId = batch.numbers[at + 1]!;
    this.probe.line = batch.numbers[at + 2]!;
    this.drainBefore(this.probe);
    this.writer.addRow(batch, i);
  }

  /** Text blocks are keyed by (source, line), not by seq: they need no merge. */
  addTexts(blocks: readonly TextBlock[]): void {
    this.writer.addTexts(blocks);
  }

  /** Writes every stored row left. */
  finish(): void {
    this.drainBefore(undefined);
    this.writer.flushRows();
  }

  private drainBefore(limit: MergeKey | undefined): void {
    for (let top = this.heap.peek(); top && (!limit || keyBefore(top, limit)); top = this.heap.peek()) {
      this.writer.addValues(top.row);
      if (top.advance()) this.heap.topChanged();
      else this.heap.pop();
    }
  }
}
