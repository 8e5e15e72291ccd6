// `kvrewind demo` (what `npm start` runs): every fixture bundle becomes an
// incident of the data directory, built in the background while the server
// already answers; it stops at once on SIGTERM and resumes the work on the
// next start; stopped through npm, however npm is stopped, nothing of it
// stays running.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FIXTURES } from "./serverHarness.js";
import { scratchDir } from "../scratchDir.js";
import { KVREWIND_CLI } from "../kvrewindCli.js";

const CLI = KVREWIND_CLI;
const REPO = fileURLToPath(new URL("../../../", import.meta.url));

async function startDemo(dataDir: string, cwd?: string) {
  const child = spawn(process.execPath, [CLI, "demo", "--port", "0", "--data-dir", dataDir], { stdio: ["ignore", "pipe", "pipe"], cwd });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const m = /kvrewind demo at (http:\/\/\S+)\n/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`demo exited with ${code}`)));
  });
  const stop = async () => {
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    return exited;
  };
  return { url, stop };
}

test("demo registers every fixture bundle, serves at once, stops promptly and resumes", async () => {
  const dataDir = join(scratchDir("kvrewind-demo-"), "data");
  const bundles = readdirSync(FIXTURES).filter((n) => statSync(join(FIXTURES, n)).isDirectory()).sort();
  const first = await startDemo(dataDir);
  const listed = (await (await fetch(new URL("api/incidents", first.url))).json()) as { incidents: { id: string; status: string; inputFiles: number }[] };
  assert.deepEqual(listed.incidents.map((i) => i.id).sort(), bundles);
  for (const i of listed.incidents) {
    assert.ok(["queued", "ingesting", "analyzing", "ready"].includes(i.status), `${i.id}: ${i.status}`);
    assert.ok(i.inputFiles > 0);
  }
  assert.equal(await first.stop(), 0);

  // The next start finds the same incidents and carries on with them.
  const second = await startDemo(dataDir);
  const again = (await (await fetch(new URL("api/incidents", second.url))).json()) as { incidents: { id: string; status: string }[] };
  assert.deepEqual(again.incidents.map((i) => i.id).sort(), bundles);
  assert.ok(again.incidents.every((i) => i.status !== "failed"));
  assert.equal(await second.stop(), 0);
});

test("demo with a relative data directory (what npm start does) builds its incidents", async () => {
  const cwd = scratchDir("kvrewind-demo-cwd-");
  const demo = await startDemo("data", cwd);
  try {
    // Jobs run one at a time; the first to finish shows whether the relative path survived the job's own working directory.
    let finished: { id: string; status: string; error?: string } | undefined;
    while (!finished) {
      const listed = (await (await fetch(new URL("api/incidents", demo.url))).json()) as { incidents: { id: string; status: string; error?: string }[] };
      finished = listed.incidents.find((i) => i.status === "ready" || i.status === "failed");
      if (!finished) await new Promise((r) => setTimeout(r, 250));
    }
    assert.equal(finished.status, "ready", `${finished.id}: ${finished.error ?? ""}`);
    assert.ok(statSync(join(cwd, "data", "incidents", finished.id, "incident.db")).isFile());
  } finally {
    await demo.stop();
  }
});

/** The processes of a process group: npm, the demo it runs, the demo's background job. */
function groupMembers(pgid: number): string[] {
  const ps = spawnSync("ps", ["-eo", "pid=,pgid=,args="], { encoding: "utf8" });
  return ps.stdout.split("\n").filter((l) => l.trim().split(/\s+/)[1] === String(pgid));
}

/** Polls until `done` holds (true) or 15 s pass (false). */
async function eventually(done: () => Promise<boolean> | boolean): Promise<boolean> {
  for (let i = 0; i < 75; i++) {
    if (await done()) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

const answers = (url: string): Promise<boolean> =>
  fetch(new URL("api/incidents", url)).then(
    () => true,
    () => false,
  );

/** What `npm start` runs once the build is done, read from package.json: the command npm's shell runs. */
function startCommand(): string {
  const start = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { scripts: { start: string } }).scripts.start;
  const [build, demo] = start.split(" && ");
  assert.equal(build, "npm run build");
  return demo!;
}

/**
 * The demo as `npm start` runs it after its build (npm, its shell running the
 * start script's command), in a process group of its own; once its first
 * incident's job runs, npm gets `signal`. Then the port must close and
 * nothing of the group remain.
 */
async function stopThroughNpm(signal: NodeJS.Signals): Promise<void> {
  const dataDir = join(scratchDir("kvrewind-demo-npm-"), "data");
  const command = `${startCommand()} --port 0 --data-dir '${dataDir}'`;
  const npm = spawn("npm", ["exec", "-c", command], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"], detached: true });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    npm.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const m = /kvrewind demo at (http:\/\/\S+)\n/.exec(out);
      if (m) resolve(m[1]!);
    });
    npm.once("exit", (code) => reject(new Error(`${command} exited with ${code}`)));
  });
  const exited = new Promise<void>((resolve) => npm.once("exit", () => resolve()));
  try {
    assert.equal((await fetch(new URL("api/incidents", url))).status, 200);
    assert.ok(await eventually(() => groupMembers(npm.pid!).some((p) => p.includes("pipeline-main"))), "no background job started");
    npm.kill(signal);
    await exited;
    assert.ok(await eventually(async () => !(await answers(url))), `the demo server still answers after npm got ${signal}`);
    assert.ok(await eventually(() => groupMembers(npm.pid!).length === 0), `left running after npm got ${signal}:\n${groupMembers(npm.pid!).join("\n")}`);
  } finally {
    try {
      process.kill(-npm.pid!, "SIGKILL");
    } catch {
      // The group is gone: nothing was left behind.
    }
  }
}

test("stopping `npm start`'s demo with SIGTERM to npm stops its server and its background job", () => stopThroughNpm("SIGTERM"));

test("stopping `npm start`'s demo with SIGINT to npm alone (not its group) stops its server and its background job", () => stopThroughNpm("SIGINT"));

test("npm killed outright, passing no signal on: the demo and its background job stop with it", () => stopThroughNpm("SIGKILL"));
