// The progress bars `kvrewind ingest` draws on a terminal never show more
// bytes done than their total: a log the server is still writing grows
// between the sniff (which takes its size, the load's total) and the load,
// and the load reads the bytes the sniff saw, no more. The CLI runs under
// `script` so that its stderr is a terminal; another connection holds the
// incident's write lock until the ingest has opened the incident (after its
// sniff), so the log grows exactly between the two.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, copyFileSync, mkdirSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { FIXTURE_INCIDENTS } from "../sharedIncident.js";
import { tempDir, withDb } from "./bundle.js";
import { KVREWIND_CLI } from "../kvrewindCli.js";

const CLI = KVREWIND_CLI;
const RANK_LOGS = join(FIXTURE_INCIDENTS, "nixl-abort-wedge/d0");

const shellQuoted = (s: string): string => `'${s.replace(/'/g, "'\\''")}'`;

/** Runs the CLI on a terminal: its pid once it is running, and everything it drew with its exit code once it exits. */
function onTerminal(args: string[]): { cliPid: () => number | undefined; finished: Promise<{ code: number | null; output: string }> } {
  const argv = [process.execPath, CLI, ...args];
  const child = spawn("script", ["-qfec", argv.map(shellQuoted).join(" "), "/dev/null"], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const cliPid = (): number | undefined => {
    const ps = spawnSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" }).stdout.split("\n");
    const line = ps.find((l) => l.trim().split(/\s+/).slice(1).join(" ") === argv.join(" "));
    return line === undefined ? undefined : Number(line.trim().split(/\s+/)[0]);
  };
  return { cliPid, finished: new Promise((resolve) => child.on("close", (code) => resolve({ code, output }))) };
}

/** Whether the process has the file open (its /proc fd links). */
function holdsOpen(pid: number, file: string): boolean {
  const fds = `/proc/${pid}/fd`;
  try {
    return readdirSync(fds).some((fd) => {
      try {
        return readlinkSync(join(fds, fd)) === file;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

test("a log that grows between the sniff and the load: the load reads what the sniff saw, and no bar shows done past its total", async () => {
  const dir = tempDir("progress-growing");
  const db = join(dir, "incident.db");
  const log = join(dir, "d0", "decode-tp0.log");
  const written = readFileSync(join(RANK_LOGS, "decode-tp0.log"), "utf8");
  mkdirSync(join(dir, "d0"));
  copyFileSync(join(RANK_LOGS, "decode-tp0.log"), log);
  copyFileSync(join(RANK_LOGS, "decode-tp1.log"), join(dir, "d0", "decode-tp1.log"));

  // The incident exists (its other rank ingested); a second connection takes its write lock.
  const first = await onTerminal(["ingest", join(dir, "d0", "decode-tp1.log"), "--db", db]).finished;
  assert.equal(first.code, 0, first.output);
  const holder = new Database(db);
  holder.exec("BEGIN EXCLUSIVE");
  const release = (): void => {
    holder.exec("ROLLBACK");
    holder.close();
  };

  const ingest = onTerminal(["ingest", log, "--db", db]);
  let exited = false;
  void ingest.finished.then(() => (exited = true));
  let grown = false;
  try {
    // The ingest opens the incident only once its sniff is over; then it waits for the lock, and the server writes on.
    for (const deadline = Date.now() + 60_000; !exited && Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
      const pid = ingest.cliPid();
      if (pid === undefined || !holdsOpen(pid, db)) continue;
      for (let i = 0; i < 3; i++) appendFileSync(log, written);
      grown = true;
      break;
    }
  } finally {
    release();
  }
  const run = await ingest.finished;
  assert.ok(grown, `the ingest never opened the incident:\n${run.output}`);
  assert.equal(run.code, 0, run.output);

  const bars = [...run.output.matchAll(/(load|store) +\|[^|]*\| *\d+% ([\d.]+)\/([\d.]+) MB/g)].map((m) => ({ phase: m[1]!, done: Number(m[2]), total: Number(m[3]) }));
  assert.ok(bars.some((b) => b.phase === "load"), `no load bar drawn:\n${run.output}`);
  assert.deepEqual(bars.filter((b) => b.done > b.total), [], "a bar past its total");
  const linesWritten = written.split("\n").length - 1;
  withDb(db, (h) => {
    const source = h.prepare("SELECT lines, bytes FROM sources WHERE path = ?").get(log) as { lines: number; bytes: number };
    assert.deepEqual(source, { lines: linesWritten, bytes: Buffer.byteLength(written) }, "the lines the sniff saw, not those written after it");
  });
});
