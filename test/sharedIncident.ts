// One ingest and one analysis of each input that tests only read, shared by
// every test file of a run. Test files run in several processes (the shards
// of test/run.ts), so the incident is kept on disk under the system's temporary
// directory, in a folder named by a hash of the ingest's arguments, of every
// input file (path, size, time, bytes) and of the built code: a changed
// input or a new build never reads an incident that an older one made.
// One process builds a folder while holding its lock file; the others wait
// for it. The folder is built (test/sharedIncidentBuild.ts) under another
// name and renamed into place when it is complete, so no process reads a
// half-built incident.
//
// The incident is shared: open it read-only. A test that writes (ingests
// into it, replays it, stores an analysis) takes a copy of its own:
// `incidentCopy` (analyzed, snapshots stored) or `ingestedCopy` (as the
// ingest left it).
//
// The folders outlive the run, so that the next run of the same build
// reuses them; folders of builds not used for an hour are removed.

import { fork, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import type { Socket } from "node:net";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import type { AnalysisReport } from "../analyzer/rules/finding.js";
import { scratchDir } from "./scratchDir.js";
import { ANALYZED_DB, INGESTED_DB, REPORT, type BuildRequest, type BuildResult, type IncidentBuild } from "./sharedIncidentBuild.js";

/** From dist/test/ to the repository root and to the built code. */
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const FIXTURE_INCIDENTS = join(REPO_ROOT, "fixtures/incidents");
export const BUNDLES = join(REPO_ROOT, "test/bundles");
const DIST = fileURLToPath(new URL("../", import.meta.url));
const BUILDER = fileURLToPath(new URL("./sharedIncidentBuild.js", import.meta.url));
const CACHE_ROOT = join(tmpdir(), "kvrewind-test-incidents");
/** Built code that neither ingests nor analyzes: a change there keeps the incidents. */
const DIST_OUTSIDE_INGEST = new Set(["test", "bench", "web"]);
const UNUSED_BUILD_MS = 60 * 60 * 1000;
const LOCK_POLL_MS = 100;
/** A lock file still empty after this long was left by a process that died before writing its pid. */
const EMPTY_LOCK_STALE_MS = 30_000;

export interface IncidentInputs {
  /** What `ingest` is given, relative paths against `cwd`: the sources' stored paths follow from them. */
  paths: readonly string[];
  /** The directory the ingest runs in; the repository root unless given. */
  cwd?: string;
  /** The incident's name in the analysis; the last part of the first path unless given. */
  name?: string;
}

export interface SharedIncident {
  /** The incident database, shared by every test process: open it read-only. */
  path: string;
  /** `analyzeIncident(db, { name })` on the freshly ingested database (which stored its snapshots). */
  report: AnalysisReport;
}

const made = new Map<string, Promise<string>>();
/** One build at a time per process: each takes both cores. */
let building: Promise<unknown> = Promise.resolve();

/**
 * The folder of `inputs`' incident, ingested and analyzed once for every test
 * process of the run. It holds both the ingested and the analyzed database,
 * so a test that asks for one and a test that asks for the other share one
 * ingest.
 */
function sharedFolder(inputs: IncidentInputs): Promise<string> {
  const cwd = inputs.cwd ?? REPO_ROOT;
  const name = inputs.name ?? basename(resolve(cwd, inputs.paths[0] ?? "."));
  const args = JSON.stringify({ cwd, paths: inputs.paths, name });
  let folder = made.get(args);
  if (!folder) {
    const dir = join(buildFolder(), hash(JSON.stringify({ args, files: inputFiles(cwd, inputs.paths) })));
    folder = building.then(() => ensureBuilt(dir, (into) => buildApart({ dir: into, cwd, paths: [...inputs.paths], name }))).then(() => dir);
    building = folder.catch(() => undefined);
    made.set(args, folder);
  }
  return folder;
}

/** The incident of `inputs`, ingested and analyzed once for every test process of the run: open it read-only. */
export async function sharedIncident(inputs: IncidentInputs): Promise<SharedIncident> {
  const dir = await sharedFolder(inputs);
  return { path: join(dir, ANALYZED_DB), report: JSON.parse(readFileSync(join(dir, REPORT), "utf8")) as AnalysisReport };
}

/** The incident of `inputs` as the ingest left it (no replay yet, so no snapshots), made once for every test process of the run: open it read-only. */
export async function ingestedIncident(inputs: IncidentInputs): Promise<string> {
  return join(await sharedFolder(inputs), INGESTED_DB);
}

/**
 * A fixture incident (fixtures/incidents/<name>) as the golden and agreement
 * tests ingest it: from its folder, every entry but expected.json. Tests that
 * do not look at the stored paths ask for this form, so they share its build.
 */
export function fixtureInputs(name: string): IncidentInputs {
  const cwd = join(FIXTURE_INCIDENTS, name);
  return { cwd, paths: readdirSync(cwd).filter((f) => f !== "expected.json"), name };
}

/** A hand-written bundle (test/bundles/<name>, README there) as its tests ingest it: from its folder, every file by its path in the bundle. */
export function bundleInputs(name: string): IncidentInputs {
  const dir = join(BUNDLES, name);
  return { cwd: dir, paths: filesOf(dir).map((f) => relative(dir, f)), name };
}

function filesOf(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesOf(join(dir, e.name)) : [join(dir, e.name)]));
}

/** A private copy of the shared incident, analyzed, in a scratch directory, for a test that writes to it. */
export async function incidentCopy(inputs: IncidentInputs): Promise<SharedIncident> {
  const shared = await sharedIncident(inputs);
  return { path: copyToScratch(shared.path), report: shared.report };
}

/** A private copy of the incident as the ingest left it, for a test that writes to it. */
export async function ingestedCopy(inputs: IncidentInputs): Promise<string> {
  return copyToScratch(await ingestedIncident(inputs));
}

function copyToScratch(db: string): string {
  const path = join(scratchDir("kvrewind-copy-"), "incident.db");
  copyFileSync(db, path);
  return path;
}

/** This process's builder (test/sharedIncidentBuild.ts), forked at its first build; it ends with this process. */
let builder: ChildProcess | undefined;
let nextRequest = 0;
const pending = new Map<number, { done: () => void; fail: (err: Error) => void; name: string }>();

function theBuilder(): ChildProcess {
  if (builder) return builder;
  // None of the test process's node options (--test-concurrency, --inspect): it is no test, and runs as a program would.
  const child = fork(BUILDER, [], { execArgv: [], stdio: ["ignore", "ignore", "pipe", "ipc"] });
  let err = "";
  const stderr = child.stderr as Socket;
  stderr.on("data", (d: Buffer) => (err += d.toString()));
  // Its error output is read only to explain its end, never waited for.
  stderr.unref();
  child.on("message", ({ id, error }: BuildResult) => {
    const waiting = pending.get(id);
    pending.delete(id);
    if (error === undefined) waiting?.done();
    else waiting?.fail(new Error(`building the shared incident ${waiting.name} failed: ${error}`));
    idle(child);
  });
  child.on("error", (e) => failPending(`could not run (${e.message})`));
  child.on("exit", (code, signal) => failPending(`ended (${signal ?? `exit ${code}`})`, err));
  builder = child;
  return child;
}

/** Every build waiting on the builder fails with why it stopped; the next build forks a new one. */
function failPending(why: string, stderr = ""): void {
  builder = undefined;
  for (const [id, waiting] of pending) {
    pending.delete(id);
    waiting.fail(new Error(`the shared incidents' builder ${why} while building ${waiting.name}: ${stderr}`));
  }
}

/** An idle builder does not keep this process alive. */
function idle(child: ChildProcess): void {
  if (pending.size > 0) return;
  child.unref();
  child.channel?.unref();
}

/** Builds `build` in this process's builder; rejects with its error when it fails. */
function buildApart(build: IncidentBuild): Promise<void> {
  const child = theBuilder();
  child.ref();
  child.channel?.ref();
  const id = nextRequest++;
  return new Promise((done, fail) => {
    pending.set(id, { done, fail, name: build.name });
    child.send({ id, build } satisfies BuildRequest);
  });
}

/** Waits for `dir`, building it with `make` when no other process is. */
async function ensureBuilt(dir: string, make: (into: string) => Promise<void>): Promise<void> {
  const lock = `${dir}.lock`;
  for (;;) {
    if (existsSync(dir)) return;
    if (takeLock(lock)) {
      try {
        if (existsSync(dir)) return;
        const into = `${dir}.building-${process.pid}`;
        rmSync(into, { recursive: true, force: true });
        mkdirSync(into, { recursive: true });
        try {
          await make(into);
          renameSync(into, dir);
        } catch (err) {
          rmSync(into, { recursive: true, force: true });
          // A rename fails when a process taken for dead finished the same folder first: that one is complete.
          if (!existsSync(dir)) throw err;
        }
        return;
      } finally {
        rmSync(lock, { force: true });
      }
    }
    if (lockIsStale(lock)) rmSync(lock, { force: true });
    else await sleep(LOCK_POLL_MS);
  }
}

function takeLock(lock: string): boolean {
  try {
    writeFileSync(lock, String(process.pid), { flag: "wx" });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
}

function lockIsStale(lock: string): boolean {
  let text: string;
  let ageMs: number;
  try {
    text = readFileSync(lock, "utf8");
    ageMs = Date.now() - statSync(lock).mtimeMs;
  } catch {
    return false;
  }
  const pid = Number(text);
  if (text === "" || !Number.isInteger(pid)) return ageMs > EMPTY_LOCK_STALE_MS;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
}

let folder: string | undefined;

/** This build's folder of incidents (made and marked used once per process); other builds' folders unused for an hour go. */
function buildFolder(): string {
  if (folder) return folder;
  const code = codeHash();
  mkdirSync(CACHE_ROOT, { recursive: true });
  for (const entry of readdirSync(CACHE_ROOT)) {
    if (entry === code) continue;
    const path = join(CACHE_ROOT, entry);
    try {
      if (Date.now() - statSync(path).mtimeMs > UNUSED_BUILD_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed by another process meanwhile.
    }
  }
  folder = join(CACHE_ROOT, code);
  mkdirSync(folder, { recursive: true });
  const now = new Date();
  utimesSync(folder, now, now);
  return folder;
}

/** The built code that ingests and analyzes, the builder and the installed packages' versions. */
function codeHash(): string {
  const h = createHash("sha256");
  const files = filesUnder(DIST).filter((f) => f.endsWith(".js") && !DIST_OUTSIDE_INGEST.has(relative(DIST, f).split(/[\\/]/)[0]!));
  for (const f of [...files, BUILDER, join(REPO_ROOT, "package-lock.json")]) {
    h.update(relative(REPO_ROOT, f)).update("\0").update(readFileSync(f)).update("\0");
  }
  return h.digest("hex").slice(0, 16);
}

/** Every input file under `paths` (relative to `cwd`) with its size, modification time and bytes' hash. */
function inputFiles(cwd: string, paths: readonly string[]): string[][] {
  return paths.flatMap((p) => {
    const abs = resolve(cwd, p);
    return (statSync(abs).isDirectory() ? filesUnder(abs) : [abs]).map((f) => {
      const s = statSync(f);
      return [f, String(s.size), String(s.mtimeMs), hash(readFileSync(f))];
    });
  });
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]))
    .sort();
}

function hash(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}
