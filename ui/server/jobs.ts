// Background work on uploaded incidents: ingest then analyze, one incident at
// a time, each in a child process so the server keeps answering meanwhile and
// a crash (or running out of memory) takes down only that job. A failure
// marks only that incident failed, with the job's message.

import { fork, type ChildProcess } from "node:child_process";
import type { Registry } from "./registry.js";
import { summarize } from "./summary.js";
import { withoutServerPaths } from "./errors.js";
import type { PipelineInput, PipelineMessage } from "./pipeline.js";
import { bundledEntry } from "../../store/packageFiles.js";

const JOB_MAIN = bundledEntry("pipeline-main");

export class JobQueue {
  private readonly pending: string[] = [];
  private running: string | null = null;
  private child: ChildProcess | null = null;
  private stopped = false;
  private readonly waiters: (() => void)[] = [];
  /** Incidents whose running job was ended on purpose: their failure is not recorded. */
  private readonly cancelled = new Set<string>();

  /** `maxUnpackedBytes`: what an upload may unpack to, its archives on upload and its compressed files in its job together (UploadLimits.maxExtractedBytes). */
  constructor(
    private readonly registry: Registry,
    private readonly log: (line: string) => void,
    private readonly maxUnpackedBytes?: number,
  ) {}

  enqueue(id: string): void {
    if (this.stopped) return;
    this.registry.update(id, { status: "queued" });
    this.pending.push(id);
    this.next();
  }

  /**
   * Stops taking jobs and ends the running one. Its incident keeps its
   * in-progress status, so the next server picks it up again (an ingest
   * killed midway leaves the database as it was).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.pending.length = 0;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill();
    await exited;
  }

  /** Takes an incident off the queue, or ends its running job; resolves once nothing of it runs. */
  async cancel(id: string): Promise<void> {
    const queued = this.pending.indexOf(id);
    if (queued >= 0) this.pending.splice(queued, 1);
    const child = this.child;
    if (this.running !== id || !child || child.exitCode !== null || child.signalCode !== null) return;
    this.cancelled.add(id);
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill();
    await exited;
  }

  /** Resolves when nothing is queued or running. */
  idle(): Promise<void> {
    if (!this.running && this.pending.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private next(): void {
    if (this.running || this.stopped) return;
    const id = this.pending.shift();
    if (id === undefined) {
      this.waiters.splice(0).forEach((w) => w());
      return;
    }
    this.running = id;
    this.run(id)
      .catch((err: unknown) => {
        if (this.stopped || this.cancelled.delete(id)) return;
        const message = withoutServerPaths(err instanceof Error ? err.message : String(err), this.registry.dataDir);
        this.log(`incident ${id}: ${message}`);
        this.registry.update(id, { status: "failed", error: message });
      })
      .finally(() => {
        this.running = null;
        this.child = null;
        if (!this.stopped) this.next();
      });
  }

  /** The list shows the top suspect, and the page the findings, while the timeline is indexed. */
  private findingsStored(id: string): void {
    try {
      this.registry.update(id, { findingsReady: true, summary: summarize(this.registry.dbPathOf(id)) });
    } catch (err) {
      // Only the early view is lost: the job goes on, and its end sets the summary again.
      this.log(`incident ${id}: the findings stored could not be read yet: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private run(id: string): Promise<void> {
    const record = this.registry.get(id)!;
    const input: PipelineInput = {
      dbPath: this.registry.dbPathOf(id),
      name: record.name,
      ...(this.maxUnpackedBytes !== undefined && { maxUnpackedBytes: this.maxUnpackedBytes }),
      ...(record.unpackedBytes !== undefined && { unpackedBefore: record.unpackedBytes }),
    };
    this.registry.update(id, { status: "ingesting", progress: { phase: "ingest", step: "starting", percent: 0 }, findingsReady: false });
    return new Promise((resolve, reject) => {
      const child = fork(JOB_MAIN, [JSON.stringify(input)], { cwd: this.registry.inputDirOf(id), stdio: ["ignore", "ignore", "pipe", "ipc"] });
      this.child = child;
      let stderr = "";
      child.stderr!.on("data", (chunk: Buffer) => {
        stderr = (stderr + chunk.toString()).slice(-2000);
      });
      let settled = false;
      child.on("message", (msg: PipelineMessage) => {
        if (msg.type === "progress") {
          const status = msg.progress.phase === "ingest" ? "ingesting" : "analyzing";
          const before = this.registry.get(id)!.progress;
          // Within a phase the figure never goes back (a step may report the same point twice).
          const percent = before?.phase === msg.progress.phase && msg.progress.percent !== null ? Math.max(before.percent ?? 0, msg.progress.percent) : msg.progress.percent;
          this.registry.update(id, { status, progress: { ...msg.progress, percent } }, { persist: false });
        } else if (msg.type === "analyzed") {
          this.findingsStored(id);
        } else if (msg.type === "done") {
          settled = true;
          try {
            const summary = summarize(this.registry.dbPathOf(id));
            const warnings = [...(this.registry.get(id)!.uploadWarnings ?? []), ...msg.warnings];
            this.registry.update(id, { status: "ready", summary, ...(warnings.length && { warnings }) });
            resolve();
          } catch (err) {
            reject(err);
          }
        } else {
          settled = true;
          reject(new Error(msg.message));
        }
      });
      child.on("error", (err) => {
        if (!settled) reject(err);
        settled = true;
      });
      child.on("exit", (code, signal) => {
        if (!settled) {
          this.log(`incident ${id}: job stderr: ${stderr}`);
          reject(new Error(`the background job stopped (${signal ?? `exit code ${code}`})`));
        }
        settled = true;
      });
    });
  }
}
