// `kvrewind export … > pipe`: a reader slower than the export (a pipe that
// fills) still gets the whole trace; Node makes a piped stdout non-blocking,
// and a plain synchronous write to a full pipe fails with EAGAIN.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { scratchDir } from "../scratchDir.js";
import { checkTrace } from "./traceEventFormat.js";
import { KVREWIND_CLI } from "../kvrewindCli.js";

const MAIN = KVREWIND_CLI;
const WEDGE = fileURLToPath(new URL("../../../fixtures/incidents/nixl-abort-wedge/", import.meta.url));

test("export to a pipe whose reader waits: the whole trace arrives and the command exits 0", async () => {
  const db = join(scratchDir("kvrewind-export-pipe-"), "wedge.db");
  const ingested = spawnSync(process.execPath, [MAIN, "ingest", join(WEDGE, "p0"), join(WEDGE, "d0"), "--db", db], { encoding: "utf8" });
  assert.equal(ingested.status, 0, ingested.stderr);
  const child = spawn(process.execPath, [MAIN, "export", db, "--format", "chrome-json"], { stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.pause();
  await new Promise((r) => setTimeout(r, 1500));
  const chunks: Buffer[] = [];
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => chunks.push(c));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  child.stdout.resume();
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  assert.equal(code, 0, stderr);
  const out = Buffer.concat(chunks);
  assert.ok(out.length > 1 << 16, `a trace larger than a pipe's buffer (${out.length} bytes)`);
  const trace = checkTrace(JSON.parse(out.toString("utf8")));
  assert.ok(trace.traceEvents.length > 0);
});
