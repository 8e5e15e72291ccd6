// What `kvrewind ingest` prints for a real fixture bundle: by default one
// screen whose totals (inputs, lines, events, ranks, hosts, time span) agree
// with the bundle's own files; --verbose a block per input; --json the whole
// summary, held to a schema of its own here.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { z } from "zod";
import { FIXTURE_INCIDENTS } from "../sharedIncident.js";
import { tempDir } from "./bundle.js";
import { KVREWIND_CLI } from "../kvrewindCli.js";

const CLI = KVREWIND_CLI;
const BUNDLE = join(FIXTURE_INCIDENTS, "nixl-abort-wedge");
/** A terminal's height: the default summary must fit one. */
const SCREEN_LINES = 24;

function kvrewind(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const escaped = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const count = z.number().int().nonnegative();
const isoTime = z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
const IngestSummaryJson = z.strictObject({
  db: z.string(),
  eventsAdded: count,
  eventsTotal: count,
  clockOffsetsUs: z.record(z.string(), z.number().int()),
  incident: z.strictObject({
    ranks: z.array(z.strictObject({ host: z.string().nullable(), role: z.string().nullable(), tp: count })),
    hosts: z.array(z.string()),
    first: isoTime.nullable(),
    last: isoTime.nullable(),
  }),
  sources: z.array(
    z.strictObject({
      path: z.string(),
      status: z.enum(["ingested", "duplicate", "skipped", "refused"]),
      reason: z.string().optional(),
      format: z.string().nullable(),
      wrapper: z.string().nullable(),
      host: z.string().nullable(),
      role: z.string().nullable(),
      ranks: z.array(z.string()),
      lines: count,
      events: count,
      pages: count,
      unparsed: count,
      inferred: count,
      unparsedShapes: z.array(z.strictObject({ shape: z.string(), count: count.min(1), line: count, example: z.string() })),
      timeOrigin: z.string().nullable(),
      errors: z.array(z.strictObject({ line: count, message: z.string() })),
      errorCount: count,
      first: isoTime.nullable(),
      last: isoTime.nullable(),
      bytes: count,
      sha256: z.string().regex(/^[0-9a-f]{64}$/).nullable(),
    }),
  ),
});

/** What the bundle's files say of themselves: how many, their lines, the machine folders, the ranks their names give, the first and last log stamp. */
function bundleFacts(): { files: string[]; lines: number; hosts: string[]; ranks: Set<string>; first: string; last: string } {
  const files = readdirSync(BUNDLE, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => relative(BUNDLE, join(d.parentPath, d.name)));
  const texts = files.map((f) => readFileSync(join(BUNDLE, f), "utf8"));
  const hosts = [...new Set(files.filter((f) => f.includes("/")).map((f) => f.split("/")[0]!))].sort();
  const ranks = new Set(files.flatMap((f) => (/^(\w+)\/\w+-tp(\d+)\./.exec(f) ? [f.replace(/^(\w+)\/\w+-tp(\d+)\..*$/, "$1/tp$2")] : [])));
  const stamps = texts.flatMap((t) => [...t.matchAll(/^\[(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)/gm)].map((m) => `${m[1]}T${m[2]}Z`)).sort();
  return { files, lines: texts.reduce((n, t) => n + t.split("\n").length - 1, 0), hosts, ranks, first: stamps[0]!, last: stamps.at(-1)! };
}

test("the default summary of a fixture bundle fits a screen, and its totals are the bundle's: inputs, lines, ranks, hosts, time span", () => {
  const facts = bundleFacts();
  const db = join(tempDir("summary-default"), "wedge.db");
  const r = kvrewind("ingest", BUNDLE, "--db", db);
  assert.equal(r.status, 0, r.stderr);
  const out = r.stdout.trimEnd().split("\n");
  assert.ok(out.length <= SCREEN_LINES, `one screen, not a block per file (${out.length} lines):\n${r.stdout}`);
  const n = (x: number): string => x.toLocaleString("en-US");
  assert.match(out[0]!, new RegExp(`^${escaped(db)}: ingested ${facts.files.length} of ${facts.files.length} inputs \\(${n(facts.lines)} lines\\); [\\d,]+ events`));
  const hosts = `${facts.hosts.length} hosts \\(${facts.hosts.join(", ")}\\)`;
  assert.match(out[1]!, new RegExp(`^  ${facts.ranks.size} ranks, ${hosts}; ${facts.first} → ${facts.last} \\(`), "a rank's log and its probe records are one rank");
  assert.match(r.stdout, /^not understood: [\d,]+ lines .* in \d+ files/m);
  assert.doesNotMatch(r.stdout, /^ingested {2}/m, "no block per input by default");
  assert.doesNotMatch(r.stdout, /^refused/m);
});

test("--verbose adds a block per input; --json is the whole summary, every source in it, and agrees with the text", () => {
  const facts = bundleFacts();
  const dir = tempDir("summary-json");
  const verbose = kvrewind("ingest", BUNDLE, "--db", join(dir, "verbose.db"), "--verbose");
  assert.equal(verbose.status, 0, verbose.stderr);
  assert.equal(verbose.stdout.match(/^ingested {2}/gm)?.length, facts.files.length);

  const r = kvrewind("ingest", BUNDLE, "--db", join(dir, "json.db"), "--json");
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, "");
  const summary = IngestSummaryJson.parse(JSON.parse(r.stdout));
  assert.deepEqual(summary.sources.map((s) => relative(BUNDLE, s.path)).sort(), [...facts.files].sort());
  assert.equal(summary.sources.reduce((n, s) => n + s.lines, 0), facts.lines);
  assert.deepEqual(summary.incident.hosts, facts.hosts);
  assert.deepEqual(new Set(summary.incident.ranks.map((k) => `${k.host}/tp${k.tp}`)), facts.ranks);
  assert.deepEqual([summary.incident.first, summary.incident.last], [facts.first, facts.last].map((t) => t.replace("Z", ".000000Z")));
  assert.equal(summary.eventsAdded, summary.eventsTotal);
  assert.equal(summary.sources.reduce((n, s) => n + s.events, 0), summary.eventsTotal);
});
