// The test runner of `npm test` (test/run.ts, test/shard.ts) on test files
// written here: every file runs once whatever the number of shards, a file's
// `before` and `after` run around its own tests and not the whole shard's,
// and a failing test or a file that throws as it loads makes the run exit 1.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { scratchDir } from "./scratchDir.js";

const RUN = fileURLToPath(new URL("./run.js", import.meta.url));

/** A test file that appends what runs to `log`: its before, two tests, its after. */
function loggingFile(dir: string, name: string, log: string): string {
  const path = join(dir, `${name}.test.mjs`);
  const note = (what: string): string => `appendFileSync(${JSON.stringify(log)}, ${JSON.stringify(`${name} ${what}\n`)})`;
  writeFileSync(
    path,
    [
      `import { appendFileSync } from "node:fs";`,
      `import { after, before, test } from "node:test";`,
      `before(() => ${note("before")});`,
      `after(() => ${note("after")});`,
      `test("one", async () => { await new Promise((r) => setTimeout(r, 20)); ${note("one")}; });`,
      `test("two", () => ${note("two")});`,
    ].join("\n") + "\n",
  );
  return path;
}

/** This process's environment without node --test's mark of its own child processes, so that a run started here reports as a run of its own. */
function withoutTestContext(): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  return env;
}

function run(files: string[], shards: number): { status: number | null; output: string } {
  const r = spawnSync(process.execPath, [RUN, "--test-reporter=tap", ...files], { encoding: "utf8", env: { ...withoutTestContext(), KVREWIND_TEST_SHARDS: String(shards) } });
  return { status: r.status, output: r.stdout + r.stderr };
}

test("each file runs once, its hooks around its own tests, whatever the number of shards", () => {
  for (const shards of [1, 2, 3]) {
    const dir = scratchDir("kvrewind-runner-");
    const log = join(dir, "log.txt");
    writeFileSync(log, "");
    const names = ["a", "b", "c", "d"];
    const r = run(names.map((n) => loggingFile(dir, n, log)), shards);
    assert.equal(r.status, 0, r.output);
    const lines = readFileSync(log, "utf8").trimEnd().split("\n");
    for (const name of names) {
      const own = lines.filter((l) => l.startsWith(`${name} `));
      assert.deepEqual(own, [`${name} before`, `${name} one`, `${name} two`, `${name} after`], `${name} with ${shards} shard(s)`);
    }
    if (shards === 1) {
      // One shard runs the files one after the other: no file's hook or test falls inside another's.
      assert.deepEqual(lines, names.flatMap((n) => [`${n} before`, `${n} one`, `${n} two`, `${n} after`]));
    }
  }
});

test("a failing test, or a file that throws as it loads, makes the run exit 1 and is named", () => {
  const dir = scratchDir("kvrewind-runner-");
  const failing = join(dir, "failing.test.mjs");
  writeFileSync(failing, `import { test } from "node:test";\nimport assert from "node:assert/strict";\ntest("two is not one", () => assert.equal(1, 2));\n`);
  const broken = join(dir, "broken.test.mjs");
  writeFileSync(broken, `throw new Error("this file cannot load");\n`);
  const passing = loggingFile(dir, "passing", join(dir, "log.txt"));
  const a = run([failing, passing], 2);
  assert.equal(a.status, 1);
  assert.match(a.output, /not ok \d+ - two is not one/);
  const b = run([broken, passing], 2);
  assert.equal(b.status, 1);
  assert.match(b.output, /this file cannot load/);
});

test("what a file keeps for its shard (test/shardLifetime.ts) is closed once, after the shard's last file; a file run alone is in no shard", () => {
  const dir = scratchDir("kvrewind-runner-");
  const log = join(dir, "log.txt");
  writeFileSync(log, "");
  const lifetime = JSON.stringify(new URL("./shardLifetime.js", import.meta.url).href);
  const keeping = (name: string): string => {
    const path = join(dir, `${name}.test.mjs`);
    writeFileSync(
      path,
      [
        `import { appendFileSync } from "node:fs";`,
        `import { after, test } from "node:test";`,
        `import { inShard, onShardEnd } from ${lifetime};`,
        `const note = (what) => appendFileSync(${JSON.stringify(log)}, what + "\\n");`,
        `test("keeps", () => { note("${name} in shard: " + inShard()); if (inShard()) onShardEnd(async () => note("${name} closed")); });`,
        `after(() => note("${name} after"));`,
      ].join("\n") + "\n",
    );
    return path;
  };
  const files = ["a", "b", "c"].map(keeping);
  const r = run(files, 1);
  assert.equal(r.status, 0, r.output);
  // Closed last opened first, after every file's own `after`.
  assert.deepEqual(readFileSync(log, "utf8").trimEnd().split("\n"), [
    "a in shard: true", "a after", "b in shard: true", "b after", "c in shard: true", "c after", "c closed", "b closed", "a closed",
  ]);

  writeFileSync(log, "");
  const alone = spawnSync(process.execPath, ["--test", files[0]!], { encoding: "utf8", env: withoutTestContext() });
  assert.equal(alone.status, 0, alone.stdout + alone.stderr);
  assert.deepEqual(readFileSync(log, "utf8").trimEnd().split("\n"), ["a in shard: false", "a after"]);
});
