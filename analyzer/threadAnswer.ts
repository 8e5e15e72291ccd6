// A worker thread that answers its caller once, while the caller goes on with
// its own work and then waits for the answer synchronously (the replay beside
// the rules' pass, analyzer/replay/replayBeside.ts; the timeline beside the
// replay, analyzer/timeline/timelineBeside.ts). The answer, or the error the
// thread met, is on the port before the caller is woken: a thread never
// leaves its caller waiting.

import { MessageChannel, parentPort, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";

/** What such a thread is started with, besides its own data. */
export interface AnsweringData {
  /** Where the answer (or the error) is posted, and where the caller posts to the thread. */
  port: MessagePort;
  /** Set to 1, then notified, once the answer is on the port. */
  done: Int32Array;
}

export type ThreadError = { type: "error"; message: string };

/** The thread's side: runs `work`, which posts the answer; posts the error instead when it throws; then wakes the caller. */
export async function answerOnce<M>(data: AnsweringData, work: (post: (msg: M, transfer?: ArrayBuffer[]) => void) => Promise<void>): Promise<void> {
  const post = (msg: M | ThreadError, transfer: ArrayBuffer[] = []): void => data.port.postMessage(msg, transfer);
  try {
    await work(post);
  } catch (err) {
    post({ type: "error", message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  } finally {
    Atomics.store(data.done, 0, 1);
    Atomics.notify(data.done, 0);
    data.port.close();
    parentPort?.close();
  }
}

/** The caller's side of a thread started on `url` with `data` (its port and flag added). */
export interface AnsweringThread<M> {
  /** Posts to the thread. */
  send(msg: unknown): void;
  /**
   * Waits for the thread's answer, blocking this thread; throws the error it
   * posted, or when it ended without one. A thread that dies without running
   * its own `finally` (its heap exhausted) would leave this waiting: callers
   * that can yield take `answerLater`.
   */
  answer(): M;
  /** The thread's answer, or a rejection with the error it posted or when it exits without answering. */
  answerLater(): Promise<M>;
  /** Stops listening: the thread ends once its work is done. */
  close(): void;
}

export function startAnsweringThread<M>(url: string, data: object, what: string): AnsweringThread<M> {
  const { port1, port2 } = new MessageChannel();
  const done = new Int32Array(new SharedArrayBuffer(4));
  const workerData: AnsweringData = { ...data, port: port2, done };
  const worker = new Worker(url, { workerData, transferList: [port2], execArgv: [] });
  worker.unref();
  const taken = (msg: M | ThreadError | undefined): M => {
    port1.close();
    if (msg === undefined) throw new Error(`${what}'s worker thread ended without an answer`);
    if ((msg as ThreadError).type === "error") throw new Error(`${what}'s worker thread failed: ${(msg as ThreadError).message}`);
    return msg as M;
  };
  return {
    send: (msg) => port1.postMessage(msg),
    answer() {
      Atomics.wait(done, 0, 0);
      return taken(receiveMessageOnPort(port1)?.message as M | ThreadError | undefined);
    },
    answerLater() {
      const posted = receiveMessageOnPort(port1);
      if (posted !== undefined) return Promise.resolve().then(() => taken(posted.message as M | ThreadError));
      // Waited for, the thread holds the process open until it answers or exits.
      worker.ref();
      return new Promise<M>((resolve, reject) => {
        const settle = (msg: M | ThreadError | undefined) => {
          worker.off("exit", onExit);
          worker.unref();
          try {
            resolve(taken(msg));
          } catch (err) {
            reject(err as Error);
          }
        };
        // An answer posted just before the thread exits is still on the port when the exit is seen.
        const onExit = () => settle(receiveMessageOnPort(port1)?.message as M | ThreadError | undefined);
        port1.once("message", (msg: M | ThreadError) => settle(msg));
        worker.once("exit", onExit);
      });
    },
    close: () => port1.close(),
  };
}
