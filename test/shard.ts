// One shard of a test run (test/run.ts): takes the run's test files one at a
// time, each only if no other shard took it (a claim file created
// exclusively), and runs it as a suite named by its path. A file is imported
// inside its suite, so its top-level tests and hooks (before, after) belong
// to that suite: its `after` runs when its own tests are done, not at the
// end of the shard. What a file keeps for the shard's later files (a browser,
// test/shardLifetime.ts) is closed after the shard's last file.

import { readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { beginShard, endShard } from "./shardLifetime.js";

/** The run's test files in the order they are taken, as JSON, in the queue folder. */
export const QUEUE_FILE = "files.json";

const DIST_TEST = fileURLToPath(new URL(".", import.meta.url));

function claim(queue: string, index: number): boolean {
  try {
    writeFileSync(join(queue, `${index}.taken`), String(process.pid), { flag: "wx" });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
}

export async function runShard(queue: string): Promise<void> {
  const files = JSON.parse(readFileSync(join(queue, QUEUE_FILE), "utf8")) as string[];
  // Not the root's `after` hook: node:test runs it as soon as the root has
  // no suite pending, which is between two files here.
  beginShard();
  try {
    for (const [index, file] of files.entries()) {
      if (!claim(queue, index)) continue;
      await describe(relative(DIST_TEST, file), async () => {
        await import(pathToFileURL(file).href);
      });
    }
  } finally {
    await endShard();
  }
}
