// Scratch directories for tests, removed when the test process exits (a
// shard of test/run.ts, or the one node --test starts for a file), so that a
// run leaves nothing behind in the system's temporary directory.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made: string[] = [];

process.on("exit", () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A new empty directory under the system's temporary directory, named `<prefix>XXXXXX`. */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
