// Sealing a large ingest's event blocks (store/blocks/sealedBlock.ts: encoded,
// compressed, keys gathered) on a worker thread (ingest/load/blockWorker.ts)
// while this thread merges the runs and fills the next blocks: this thread
// only hands each block's columns over (one buffer, transferred, and back
// with the sealed block to be filled again; the strings of its dictionaries
// and attrs are cloned) and writes the sealed blocks that come back.
// The merge and the writes stay synchronous, inside the one transaction:
// replies are taken with receiveMessageOnPort, and this thread sleeps on a
// shared counter (Atomics.wait) only while BLOCKS_IN_FLIGHT blocks wait to be
// sealed, which bounds the memory they hold.

import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import { contentBuffers, type BlockColumns, type BlockContent } from "../../store/blocks/blockCodec.js";
import type { BlockSealer, BlockSealerFactory, SealedBlock } from "../../store/blocks/sealedBlock.js";
import { bundledEntry } from "../../store/packageFiles.js";
import type { BlockToSeal, BlockWorkerData, SealReply } from "./blockWorker.js";

const WORKER_URL = bundledEntry("blockWorker");

/**
 * From this many rows to write (the new ones and, when the incident holds
 * events, the stored ones rewritten with them) the blocks are sealed on a
 * worker; below it the worker's start costs more than it saves (measured in
 * bench/RESULTS.md).
 */
export const BLOCK_WORKER_ROWS = 100_000;

/** Blocks given to the worker and not yet written (each ~0.7 MB of columns until it is sealed). */
const BLOCKS_IN_FLIGHT = 8;

/** A block is sealed in milliseconds: a worker silent this long has stopped. */
const STALL_MS = 60_000;

export const sealOnWorker: BlockSealerFactory = (write) => new WorkerSealer(write);

class WorkerSealer implements BlockSealer {
  private readonly port: MessagePort;
  /** Replies the worker has sent (one Int32, shared). */
  private readonly replies: Int32Array;
  private inFlight = 0;

  constructor(private readonly write: (sealed: SealedBlock, spent: BlockColumns) => void) {
    const { port1, port2 } = new MessageChannel();
    const answered = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
    this.replies = new Int32Array(answered);
    const data: BlockWorkerData = { port: port2, answered };
    const worker = new Worker(WORKER_URL, { workerData: data, transferList: [port2] });
    // A failure outside a block's sealing (the worker did not start) leaves this thread waiting: STALL_MS reports it.
    worker.on("error", () => undefined);
    this.port = port1;
  }

  seal(block: number, content: BlockContent): void {
    this.port.postMessage({ block, content } satisfies BlockToSeal, contentBuffers(content));
    this.inFlight++;
    for (let reply = receiveMessageOnPort(this.port); reply !== undefined; reply = receiveMessageOnPort(this.port)) this.take(reply.message as SealReply);
    while (this.inFlight >= BLOCKS_IN_FLIGHT) this.writeNext();
  }

  finish(): void {
    while (this.inFlight > 0) this.writeNext();
  }

  /** Closing the port ends the worker: it idles and exits by itself (ingest/load/workerSettle.ts). */
  close(): void {
    this.port.close();
  }

  /** Waits for the worker's next reply and writes its block. */
  private writeNext(): void {
    for (;;) {
      const seen = Atomics.load(this.replies, 0);
      const reply = receiveMessageOnPort(this.port);
      if (reply !== undefined) return this.take(reply.message as SealReply);
      if (Atomics.wait(this.replies, 0, seen, STALL_MS) === "timed-out") {
        throw new Error(`the worker sealing event blocks has not answered for ${STALL_MS / 1000} s`);
      }
    }
  }

  private take(reply: SealReply): void {
    this.inFlight--;
    if ("error" in reply) throw new Error(`sealing an event block failed: ${reply.error}`);
    const { data } = reply.sealed;
    this.write({ ...reply.sealed, data: Buffer.from(data.buffer, data.byteOffset, data.byteLength) }, reply.spent);
  }
}
