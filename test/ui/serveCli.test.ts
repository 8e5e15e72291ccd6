// `kvrewind serve` as a user runs it: a URL on loopback, a JSON API behind it,
// a clean stop on SIGTERM, and a usage error (exit 2) for a bad option.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const CLI = fileURLToPath(new URL("../../cli/main.js", import.meta.url));

test("serve prints a loopback URL, answers there, and stops on SIGTERM", async () => {
  const dataDir = join(mkdtempSync(join(tmpdir(), "kvrewind-serve-")), "data");
  const child = spawn(process.execPath, [CLI, "serve", "--port", "0", "--data-dir", dataDir], { stdio: ["ignore", "pipe", "pipe"] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const m = /at (http:\/\/\S+)\n/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`serve exited with ${code} before printing its URL`)));
  });
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  const res = await fetch(new URL("api/incidents", url));
  assert.deepEqual(await res.json(), { incidents: [] });
  const page = await fetch(url);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<div id="app"><\/div>/);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.kill("SIGTERM");
  assert.equal(await exited, 0);
});

test("a bad option is a usage error with a message", () => {
  const run = spawnSync(process.execPath, [CLI, "serve", "--port", "99999", "--data-dir", mkdtempSync(join(tmpdir(), "kvrewind-serve-"))], { encoding: "utf8" });
  assert.equal(run.status, 2);
  assert.equal(run.stderr.trim(), "kvrewind: --port is at most 65535");
});
