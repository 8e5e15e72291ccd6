// Watching an ingest's worker threads from a test: how many came online,
// how many the main thread terminated, and how each exited.

import { Worker } from "node:worker_threads";

/** How long cameOnline waits for the workers expected. */
const ONLINE_WAIT_MS = 5000;

/** Every Worker's terminate() calls and exit codes, from here on. */
export function watchWorkers(): { terminated: () => number; online: () => number; cameOnline: (n: number) => Promise<number>; exits: () => Promise<number[]> } {
  let terminated = 0;
  let online = 0;
  const codes: number[] = [];
  let waiting: (() => void) | null = null;
  const terminate = Worker.prototype.terminate;
  Worker.prototype.terminate = function (this: Worker) {
    terminated++;
    return terminate.call(this);
  };
  const emit = Worker.prototype.emit;
  Worker.prototype.emit = function (this: Worker, name: string | symbol, ...args: unknown[]) {
    if (name === "online") online++;
    if (name === "exit") {
      codes.push(args[0] as number);
      waiting?.();
    }
    return emit.call(this, name, ...args);
  };
  return {
    terminated: () => terminated,
    online: () => online,
    // A worker's "online" event waits for this thread's event loop, which a synchronous store phase holds: polled for a while.
    cameOnline: async (n) => {
      for (let waited = 0; online < n && waited < ONLINE_WAIT_MS; waited += 10) await new Promise((r) => setTimeout(r, 10));
      return online;
    },
    // Resolves once every worker that came online has exited (the test's timeout bounds the wait).
    exits: () =>
      new Promise((resolve) => {
        const check = (): void => {
          if (codes.length >= online) resolve(codes);
        };
        waiting = check;
        check();
      }),
  };
}
