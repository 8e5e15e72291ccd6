// Merging the row streams of the load workers into the one global order.
// Each load worker parses a share of the new sources and merges them by the
// merge key (ingest/load/merge.ts); this merges their streams, row by row, by the
// same key. Taking the least head of the streams, each itself the least head
// of its sources, gives exactly the order of one merge over all sources.

import { NUMBER_WIDTH, type RowBatch, type RowSink } from "../../store/rows.js";

export class StreamMerge {
  private readonly queues: RowBatch[][];
  private readonly next: number[];
  private readonly ended: boolean[];

  /** `consumed(stream)` is called when a batch of that stream has been written out. */
  constructor(
    streams: number,
    private readonly sink: RowSink,
    private readonly consumed: (stream: number) => void,
  ) {
    this.queues = Array.from({ length: streams }, () => []);
    this.next = new Array<number>(streams).fill(0);
    this.ended = new Array<boolean>(streams).fill(false);
  }

  add(stream: number, batch: RowBatch): void {
    // Texts are keyed by (source, line), not by order: they are written as they come.
    this.sink.addTexts(batch.texts);
    if (batch.length === 0) this.consumed(stream);
    else this.queues[stream]!.push(batch);
    this.drain();
  }

  end(stream: number): void {
    this.ended[stream] = true;
    this.drain();
  }

  /** Writes rows while every stream that has not ended has a row waiting. */
  private drain(): void {
    for (;;) {
      let best = -1;
      for (let s = 0; s < this.queues.length; s++) {
        const batch = this.queues[s]![0];
        if (batch === undefined) {
          if (this.ended[s]) continue;
          return;
        }
        if (best < 0 || rowBefore(batch, this.next[s]!, this.queues[best]![0]!, this.next[best]!)) best = s;
      }
      if (best < 0) return;
      const queue = this.queues[best]!;
      const batch = queue[0]!;
      this.sink.addRow(batch, this.next[best]!);
      if (++this.next[best]! === batch.length) {
        queue.shift();
        this.next[best] = 0;
        this.consumed(best);
      }
    }
  }
}

/** The merge key order (ingest/load/merge.ts keyBefore) between row i of a and row j of b. */
function rowBefore(a: RowBatch, i: number, b: RowBatch, j: number): boolean {
  const x = a.numbers;
  const y = b.numbers;
  const p = i * NUMBER_WIDTH;
  const q = j * NUMBER_WIDTH;
  if (x[p] !== y[q]) return x[p]! < y[q]!;
  if (x[p + 1] !== y[q + 1]) return x[p + 1]! < y[q + 1]!;
  return x[p + 2]! < y[q + 2]!;
}
