// How many hosts an incident spans, as ingest, the text report and the
// post-mortem say it: counted from what the records name (the machine
// folders of a real bundle), and "host unknown" when no record names one,
// never "0 host(s)".

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../sharedIncident.js";
import { scratchDir } from "../scratchDir.js";
import { KVREWIND_CLI } from "../kvrewindCli.js";

const MAIN = KVREWIND_CLI;
const BUNDLE = join(REPO_ROOT, "test/bundles/crashed-scheduler");

function kvrewind(cwd: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [MAIN, ...args], { cwd, encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The ingest summary's ranks-and-hosts line, the text report's header and the post-mortem's evidence line of one incident. */
function hostLines(cwd: string, input: string): { ingest: string; text: string; markdown: string } {
  const db = join(cwd, "incident.db");
  const ingested = kvrewind(cwd, "ingest", input, "--db", db);
  assert.ok(ingested.status === 0 || ingested.status === 3, ingested.stderr);
  const text = kvrewind(cwd, "analyze", db).stdout.split("\n")[1]!;
  const markdown = kvrewind(cwd, "analyze", db, "--markdown").stdout.split("\n").find((l) => l.startsWith("- Evidence: "))!;
  return { ingest: ingested.stdout.split("\n")[1]!, text, markdown };
}

test("a bundle's machine folders are its hosts, counted and named alike by ingest, the text report and the post-mortem", () => {
  const hosts = readdirSync(BUNDLE).sort();
  const ranks = hosts.flatMap((h) => readdirSync(join(BUNDLE, h))).length;
  const lines = hostLines(scratchDir("kvrewind-hosts-"), BUNDLE);
  const named = `${hosts.length} hosts (${hosts.join(", ")})`;
  assert.equal(lines.ingest.split(";")[0], `  ${ranks} ranks, ${named}`);
  assert.ok(lines.text.endsWith(` · ${named}`), lines.text);
  assert.ok(lines.markdown.endsWith(`, ${ranks} ranks, ${named}`), lines.markdown);
});

test("a log whose records and path name no host: 'host unknown', not '0 host(s)' or '?'", () => {
  const dir = scratchDir("kvrewind-host-unknown-");
  // The decode rank's log saved as the server's log, the way it is often handed over.
  copyFileSync(join(BUNDLE, "d0/decode-tp0.log"), join(dir, "server.log"));
  const lines = hostLines(dir, "server.log");
  assert.equal(lines.ingest.split(";")[0], "  1 rank, host unknown");
  assert.ok(lines.text.endsWith(" · host unknown"), lines.text);
  assert.ok(lines.markdown.endsWith(", 1 rank, host unknown"), lines.markdown);
  for (const line of Object.values(lines)) assert.doesNotMatch(line, /\b0 hosts?\b|host\(s\)|\?$/);
});
