// Background work on uploaded incidents: ingest then analyze, one incident at
// a time, each in a worker thread so the server keeps answering meanwhile.
// A failure marks only that incident failed, with the worker's message.

import { Worker } from "node:worker_threads";
import type { Registry } from "./registry.js";
import { summarize } from "./summary.js";
import type { PipelineInput, PipelineMessage } from "./pipeline.js";

const WORKER_URL = new URL("./pipeline-worker.js", import.meta.url);

export class JobQueue {
  private readonly pending: string[] = [];
  private running: string | null = null;
  private readonly waiters: (() => void)[] = [];

  constructor(
    private readonly registry: Registry,
    private readonly log: (line: string) => void,
  ) {}

  enqueue(id: string): void {
    this.registry.update(id, { status: "queued" });
    this.pending.push(id);
    this.next();
  }

  /** Resolves when nothing is queued or running. */
  idle(): Promise<void> {
    if (!this.running && this.pending.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private next(): void {
    if (this.running) return;
    const id = this.pending.shift();
    if (id === undefined) {
      this.waiters.splice(0).forEach((w) => w());
      return;
    }
    this.running = id;
    this.run(id)
      .catch((err: unknown) => {
        const message = err instanceof Error ? err.message : String(err);
        this.log(`incident ${id}: ${message}`);
        this.registry.update(id, { status: "failed", error: message });
      })
      .finally(() => {
        this.running = null;
        this.next();
      });
  }

  private run(id: string): Promise<void> {
    const input: PipelineInput = { dbPath: this.registry.dbPathOf(id), inputDir: this.registry.inputDirOf(id) };
    this.registry.update(id, { status: "ingesting", progress: { phase: "ingest", done: 0, total: 0 } });
    return new Promise((resolve, reject) => {
      const worker = new Worker(WORKER_URL, { workerData: input });
      let settled = false;
      worker.on("message", (msg: PipelineMessage) => {
        if (msg.type === "progress") {
          const status = msg.phase === "analyze" ? "analyzing" : "ingesting";
          this.registry.update(id, { status, progress: { phase: msg.phase, done: msg.done, total: msg.total } });
        } else if (msg.type === "done") {
          settled = true;
          const summary = summarize(this.registry.dbPathOf(id));
          this.registry.update(id, { status: "ready", summary });
          this.registry.timeline(id).catch((err: Error) => this.log(`incident ${id}: timeline index: ${err.message}`));
          resolve();
        } else {
          settled = true;
          reject(new Error(msg.message));
        }
      });
      worker.on("error", (err) => {
        if (!settled) reject(err);
        settled = true;
      });
      worker.on("exit", (code) => {
        if (!settled) reject(new Error(`the ingest worker stopped (exit code ${code})`));
        settled = true;
      });
    });
  }
}
