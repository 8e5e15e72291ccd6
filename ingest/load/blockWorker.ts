// The worker-thread side of sealing event blocks (ingest/load/blockSealer.ts):
// each block's content as it arrives on the port, sealed (store/blocks/sealedBlock.ts)
// and sent back, its compressed bytes transferred; `answered` counts the
// replies, for the main thread to wait on without running its event loop.
// When the main thread closes the port, the worker idles and exits by itself
// (ingest/load/workerSettle.ts).

import { workerData, type MessagePort } from "node:worker_threads";
import { columnsBuffer, type BlockColumns, type BlockContent } from "../../store/blocks/blockCodec.js";
import { sealBlock, type SealedBlock } from "../../store/blocks/sealedBlock.js";
import { settleThenExit } from "./workerSettle.js";

export interface BlockWorkerData {
  port: MessagePort;
  /** One Int32: the replies sent so far. */
  answered: SharedArrayBuffer;
}

export interface BlockToSeal {
  block: number;
  content: BlockContent;
}

/** The sealed block, and the columns its content came in, sent back to be filled again. */
export type SealReply = { sealed: SealedBlock; spent: BlockColumns } | { error: string };

const { port, answered } = workerData as BlockWorkerData;
const replies = new Int32Array(answered);

port.on("message", ({ block, content }: BlockToSeal) => {
  try {
    const sealed = sealBlock(block, content);
    // A small result may lie in Node's shared Buffer pool, which is not to be transferred: it travels in a buffer of its own.
    const data = sealed.data.byteLength === sealed.data.buffer.byteLength ? sealed.data : new Uint8Array(sealed.data);
    const spent = { num: content.num, ids: content.ids };
    port.postMessage({ sealed: { ...sealed, data }, spent } satisfies SealReply, [data.buffer as ArrayBuffer, columnsBuffer(spent)]);
  } catch (e) {
    port.postMessage({ error: e instanceof Error ? e.message : String(e) } satisfies SealReply);
  }
  Atomics.add(replies, 0, 1);
  Atomics.notify(replies, 0);
});
port.on("close", settleThenExit);
