// `kvrewind serve` as a user runs it: a URL on loopback, a JSON API behind it,
// a clean stop on SIGTERM, and a usage error (exit 2) for a bad option.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { scratchDir } from "../scratchDir.js";
import { KVREWIND_CLI } from "../kvrewindCli.js";

const CLI = KVREWIND_CLI;

test("serve prints a loopback URL, answers there, and stops on SIGTERM", async () => {
  const dataDir = join(scratchDir("kvrewind-serve-"), "data");
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
  const run = spawnSync(process.execPath, [CLI, "serve", "--port", "99999", "--data-dir", scratchDir("kvrewind-serve-")], { encoding: "utf8" });
  assert.equal(run.status, 2);
  assert.equal(run.stderr.trim(), "kvrewind: --port is at most 65535");
});

test("serve on a non-loopback address says so loudly and requires the token it prints", async () => {
  const dataDir = join(scratchDir("kvrewind-serve-"), "data");
  const child = spawn(process.execPath, [CLI, "serve", "--host", "0.0.0.0", "--port", "0", "--data-dir", dataDir], { stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const m = /at (http:\/\/\S+)\n/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`serve exited with ${code} before printing its URL`)));
  });
  try {
    const token = new URL(url).searchParams.get("token")!;
    assert.match(token, /^[A-Za-z0-9_-]{32}$/);
    await new Promise<void>((resolve) => (err.includes("open:") ? resolve() : child.stderr.on("data", () => err.includes("open:") && resolve())));
    assert.match(err, /^WARNING: kvrewind is listening on 0\.0\.0\.0:\d+: anyone who can reach this machine can reach it\.$/m);
    assert.ok(err.includes(`access token: ${token}`));
    const api = new URL("/api/incidents", url);
    assert.equal((await fetch(api)).status, 401);
    assert.equal((await fetch(api, { headers: { "x-kvrewind-token": token } })).status, 200);
  } finally {
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    assert.equal(await exited, 0);
  }
});
