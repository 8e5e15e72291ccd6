// `npm test`: every test file under dist/test/ (or the files named), run by
// node --test in a few long-lived processes, the shards, instead of one
// process per file: loading the built modules is a large fixed cost of every
// test process, paid before its first test (bench/RESULTS.md, "Test suite
// time").
//
// Each shard takes the next file no shard has taken yet (test/shard.ts) and
// runs it as a suite named by its path, then takes another: the files spread
// over the shards as node --test spreads files over its processes.
// Options (arguments starting with --) go to node --test, e.g.
// `node dist/test/run.js --test-reporter=dot dist/test/rules/*.test.js`;
// KVREWIND_TEST_SHARDS sets how many shards run at once (2 unless set).

import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { QUEUE_FILE } from "./shard.js";

const DIST_TEST = fileURLToPath(new URL(".", import.meta.url));
const SHARD = fileURLToPath(new URL("./shard.js", import.meta.url));
/** Folders whose files run first: the browser tests are the longest files and mostly wait, so they overlap the rest instead of ending the run. */
const FIRST = ["e2e/"];

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? testFiles(path) : e.name.endsWith(".test.js") ? [path] : [];
  });
}

function inRunOrder(files: string[]): string[] {
  const rank = (f: string): number => (FIRST.some((dir) => relative(DIST_TEST, f).startsWith(dir)) ? 0 : 1);
  return [...files].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

const args = process.argv.slice(2);
const options = args.filter((a) => a.startsWith("--"));
const named = args.filter((a) => !a.startsWith("--")).map((f) => resolve(f));
const files = inRunOrder(named.length > 0 ? named : testFiles(DIST_TEST));
const shards = Math.max(1, Number(process.env.KVREWIND_TEST_SHARDS ?? 2) || 2);

const queue = mkdtempSync(join(tmpdir(), "kvrewind-test-run-"));
writeFileSync(join(queue, QUEUE_FILE), JSON.stringify(files));
const entries = Array.from({ length: Math.min(shards, files.length) }, (_, i) => {
  const entry = join(queue, `shard-${i + 1}.mjs`);
  writeFileSync(entry, `import { runShard } from ${JSON.stringify(pathToFileURL(SHARD).href)};\nawait runShard(${JSON.stringify(queue)});\n`);
  return entry;
});

const child = spawn(process.execPath, ["--test", `--test-concurrency=${shards}`, ...options, ...entries], { stdio: "inherit" });
const forward = (signal: NodeJS.Signals): void => void child.kill(signal);
process.on("SIGINT", forward);
process.on("SIGTERM", forward);
child.on("close", (code, signal) => {
  rmSync(queue, { recursive: true, force: true });
  process.exitCode = code ?? (signal ? 1 : 0);
});
