// Comments and docs cite the code they explain by its path; a cited file
// that no longer exists sends the next reader nowhere. Every repository path
// named in a tracked source or document must exist.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const TOP = "domain|ingest|store|analyzer|ui|cli|fixtures|test|bench|docs";
/** A path from the repository root; one inside another repository's path (`sglang/docs/…`) is not ours. */
const CITED = new RegExp(`(?<![\\w/.-])(?:${TOP})/[\\w/.-]+\\.(?:ts|md|json|hyp)\\b`, "g");

function citedPaths(text: string): string[] {
  return [...text.matchAll(CITED)].map((m) => m[0]);
}

test("every repository path a source or document cites exists", () => {
  // This folder's tests plant made-up paths to prove their checks fail; the
  // benchmark notebook's entries name the files as they were at their commit.
  const tracked = execFileSync("git", ["ls-files", "*.ts", "*.md"], { cwd: ROOT, encoding: "utf8" })
    .split("\n")
    .filter((f) => f !== "" && !f.startsWith("test/architecture/") && f !== "bench/RESULTS.md");
  const missing: string[] = [];
  for (const file of tracked) {
    if (!existsSync(join(ROOT, file))) continue;
    for (const path of citedPaths(readFileSync(join(ROOT, file), "utf8"))) {
      if (!existsSync(join(ROOT, path))) missing.push(`${file}: ${path}`);
    }
  }
  assert.deepEqual([...new Set(missing)], []);
});

test("a citation is read as a path from the root, not inside another repository's path", () => {
  assert.deepEqual(citedPaths("see ingest/segments.ts and python/sglang/test/srt/x.ts, docs/store.md."), ["ingest/segments.ts", "docs/store.md"]);
});
