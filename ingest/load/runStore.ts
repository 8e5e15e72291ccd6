// Where the parsed runs wait for the merge (ingest/load/workers.ts): every
// source must be parsed before the clock offsets, and so the global order,
// are known. Packed batches (store/rows.ts packBatch, ~25 bytes a row with
// their text) are kept in memory up to a budget; past it they are appended
// to a temporary file and read back as the merge reaches them, so that the
// ingest's memory stays bounded however large its input.

import { closeSync, openSync, readSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { TextBlock } from "../../store/eventText.js";
import type { PackedBatch } from "../../store/rows.js";

/** Packed bytes kept in memory: 2 M lines of the ingest benchmark take about 50 MB. */
export const RUN_MEMORY_BYTES = 192 * 1024 * 1024;

/** Where a spilled buffer lies in the file. */
interface Extent {
  at: number;
  bytes: number;
}

/** A batch written to the file: its row count, and where its packed columns and its text blocks' arrays lie. */
export interface SpilledBatch {
  length: number;
  spilled: { packed: Extent; texts: { sourceId: number; firstLine: number; lastLine: number; lines: Extent; ends: Extent; text: Extent }[] };
}

export type WaitingBatch = PackedBatch | SpilledBatch;

export class RunStore {
  private held = 0;
  private fd: number | null = null;
  private end = 0;

  constructor(
    private readonly dir: string,
    private readonly budgetBytes = RUN_MEMORY_BYTES,
  ) {}

  keep(batch: PackedBatch): WaitingBatch {
    const bytes = batch.packed.byteLength + batch.texts.reduce((n, t) => n + t.lines.byteLength + t.ends.byteLength + t.text.byteLength, 0);
    if (this.held + bytes <= this.budgetBytes) {
      this.held += bytes;
      return batch;
    }
    const texts = batch.texts.map((t) => ({ sourceId: t.sourceId, firstLine: t.firstLine, lastLine: t.lastLine, lines: this.write(t.lines), ends: this.write(t.ends), text: this.write(t.text) }));
    return { length: batch.length, spilled: { packed: this.write(batch.packed), texts } };
  }

  /** The batch as it was kept. */
  take(batch: WaitingBatch): PackedBatch {
    if (!("spilled" in batch)) return batch;
    const { packed, texts } = batch.spilled;
    const blocks: TextBlock[] = texts.map((t) => ({
      sourceId: t.sourceId,
      firstLine: t.firstLine,
      lastLine: t.lastLine,
      lines: new Uint32Array(this.read(t.lines).buffer),
      ends: new Uint32Array(this.read(t.ends).buffer),
      text: this.read(t.text),
    }));
    return { length: batch.length, packed: this.read(packed), texts: blocks };
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private write(view: ArrayBufferView): Extent {
    this.fd ??= openSync(join(this.dir, "runs.bin"), "w+");
    const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
    const extent = { at: this.end, bytes: bytes.byteLength };
    for (let done = 0; done < bytes.byteLength; ) done += writeSync(this.fd, bytes, done, bytes.byteLength - done, this.end + done);
    this.end += bytes.byteLength;
    return extent;
  }

  /** A spilled buffer, in an ArrayBuffer of its own (so that typed arrays view it from its start). */
  private read(extent: Extent): Uint8Array {
    const out = new Uint8Array(extent.bytes);
    for (let done = 0; done < extent.bytes; ) {
      const n = readSync(this.fd!, out, done, extent.bytes - done, extent.at + done);
      if (n === 0) throw new Error(`the parsed rows' file ended at byte ${extent.at + done} of ${extent.at + extent.bytes}`);
      done += n;
    }
    return out;
  }
}
