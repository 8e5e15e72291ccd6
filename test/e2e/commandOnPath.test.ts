// The README's ways to run `kvrewind` after `npm install`, followed to the
// letter from a folder outside the checkout: `npm link` (into a global prefix
// of the test's own, so the machine's is untouched) puts it on PATH, and the
// `node <checkout>/bin/kvrewind.js` form works from anywhere. The README never
// sends anyone to `npx kvrewind`, which outside the checkout asks the public
// registry for a package of that name.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { FIXTURE_INCIDENTS, REPO_ROOT } from "../sharedIncident.js";
import { scratchDir } from "../scratchDir.js";

const README = readFileSync(join(REPO_ROOT, "README.md"), "utf8");

/** The README's section on the command: from its heading to the next one. */
function commandSection(): string {
  const start = README.indexOf("## The `kvrewind` command");
  assert.ok(start >= 0, "the README has a section on the kvrewind command");
  return README.slice(start, README.indexOf("\n## ", start + 1));
}

test("`npm link`, as the README says, puts kvrewind on PATH: it ingests a fixture from a folder outside the checkout", () => {
  assert.match(commandSection(), /`npm link` in this checkout/);
  const prefix = scratchDir("kvrewind-npm-prefix-");
  const env = { ...process.env, npm_config_prefix: prefix };
  const link = spawnSync("npm", ["link", "--offline", "--no-audit", "--no-fund"], { cwd: REPO_ROOT, env, encoding: "utf8" });
  assert.equal(link.status, 0, link.stderr);
  const elsewhere = scratchDir("kvrewind-elsewhere-");
  const onPath = { ...process.env, PATH: `${join(prefix, "bin")}${delimiter}${process.env.PATH ?? ""}` };
  const r = spawnSync("kvrewind", ["ingest", join(FIXTURE_INCIDENTS, "healthy"), "--db", "healthy.db"], { cwd: elsewhere, env: onPath, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^healthy\.db: ingested \d+ of \d+ inputs/);
});

test("the README's `node <checkout>/bin/kvrewind.js` runs from a folder outside the checkout", () => {
  const form = /`(node <checkout>\/[^`]+)`/.exec(commandSection());
  assert.ok(form, "the README names the node form with the checkout's path");
  const [node, script] = form[1]!.replace("<checkout>", REPO_ROOT.replace(/\/$/, "")).split(" ");
  assert.equal(node, "node");
  const r = spawnSync(process.execPath, [script!, "check", "--list"], { cwd: scratchDir("kvrewind-elsewhere-"), encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^read-after-last-notify +/m);
});

test("the README never tells anyone to run `npx kvrewind`", () => {
  const sentences = README.split(/(?<=[.:])\s+/).filter((s) => s.includes("npx kvrewind"));
  assert.ok(sentences.every((s) => /^Never\b/.test(s)), sentences.join("\n"));
});
