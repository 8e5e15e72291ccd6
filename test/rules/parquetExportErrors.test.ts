// What `kvrewind export --format parquet` refuses, each with exit 2 and a
// message naming what it refused, leaving every file as it was: no --out, an
// --out that is a file, an earlier export's files without --force, a file
// in the way that is not Parquet even with --force, options of the Parquet
// export given to the Chrome one, an input that is not an incident. And an
// incident with no stored analysis: its findings file has no rows, and the
// command says why.

import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fixtureInputs, ingestedIncident } from "../sharedIncident.js";
import { scratchDir } from "../scratchDir.js";
import { Duck, kvrewind } from "./parquetRead.js";

const WEDGE = fixtureInputs("nixl-abort-wedge");

const duck = await Duck.open();
after(() => duck.close());

function fingerprint(path: string): { sha256: string; mtimeMs: number } {
  return { sha256: createHash("sha256").update(readFileSync(path)).digest("hex"), mtimeMs: statSync(path).mtimeMs };
}

test("an export with nowhere to go, or into a file, is refused and writes nothing", async () => {
  const path = await ingestedIncident(WEDGE);
  const dir = scratchDir("kvrewind-parquet-usage-");
  const noOut = kvrewind("export", path, "--format", "parquet");
  assert.deepEqual([noOut.status, noOut.stdout, noOut.stderr], [2, "", "kvrewind: --format parquet writes three files: name the folder with --out DIR\n"]);

  const file = join(dir, "notes.txt");
  writeFileSync(file, "mine\n");
  const before = fingerprint(file);
  const intoFile = kvrewind("export", path, "--format", "parquet", "--out", file);
  assert.deepEqual([intoFile.status, intoFile.stderr], [2, `kvrewind: ${file}: not a folder; --out names the folder the Parquet files are written to\n`]);
  assert.deepEqual(fingerprint(file), before);

  const chrome = kvrewind("export", path, "--format", "chrome-json", "--force");
  assert.deepEqual([chrome.status, chrome.stdout, chrome.stderr], [2, "", "kvrewind: --force and --incident go with --format parquet\n"]);
  assert.deepEqual(readdirSync(dir), ["notes.txt"]);
});

test("an earlier export is replaced only with --force, and a file in the way that is not Parquet never", async () => {
  const path = await ingestedIncident(WEDGE);
  const out = join(scratchDir("kvrewind-parquet-again-"), "wedge");
  const first = kvrewind("export", path, "--format", "parquet", "--out", out, "--incident", "first");
  assert.equal(first.status, 0, first.stderr);
  const files = ["events.parquet", "findings.parquet", "sources.parquet"];
  assert.deepEqual(readdirSync(out).sort(), files);
  const before = files.map((f) => fingerprint(join(out, f)));

  const again = kvrewind("export", path, "--format", "parquet", "--out", out, "--incident", "second");
  assert.deepEqual([again.status, again.stdout], [2, ""]);
  assert.equal(again.stderr, `kvrewind: ${join(out, "events.parquet")}: already there; it was left as it was (--force replaces the files of an earlier export)\n`);
  assert.deepEqual(files.map((f) => fingerprint(join(out, f))), before);

  const forced = kvrewind("export", path, "--format", "parquet", "--out", out, "--incident", "second", "--force");
  assert.equal(forced.status, 0, forced.stderr);
  assert.deepEqual(await duck.rows(`SELECT DISTINCT incident FROM read_parquet('${out}/*.parquet', union_by_name = true)`), [["second"]]);
  assert.deepEqual(readdirSync(out).sort(), files, "no temporary file left");

  const mixed = join(scratchDir("kvrewind-parquet-mixed-"), "out");
  mkdirSync(mixed);
  writeFileSync(join(mixed, "sources.parquet"), "a spreadsheet someone saved here\n");
  const theirs = fingerprint(join(mixed, "sources.parquet"));
  const refused = kvrewind("export", path, "--format", "parquet", "--out", mixed, "--force");
  assert.deepEqual([refused.status, refused.stderr], [2, `kvrewind: ${join(mixed, "sources.parquet")}: not a Parquet file; it was left as it was (--force replaces only Parquet files)\n`]);
  assert.deepEqual(fingerprint(join(mixed, "sources.parquet")), theirs);
  assert.deepEqual(readdirSync(mixed), ["sources.parquet"], "nothing written beside it");
});

test("an input that is not an incident is refused, naming it, and nothing is made", () => {
  const dir = scratchDir("kvrewind-parquet-notincident-");
  const log = join(dir, "decode-tp0.log");
  writeFileSync(log, "[2026-06-20 14:00:00 DP0 TP0] Decode batch, #running-req: 1\n");
  const r = kvrewind("export", log, "--format", "parquet", "--out", join(dir, "out"));
  assert.deepEqual([r.status, r.stderr], [2, `kvrewind: ${log}: not an incident database (expected a SQLite file made by \`kvrewind ingest\`)\n`]);
  assert.equal(existsSync(join(dir, "out")), false);
});

test("an incident never analyzed exports its events and sources, no findings, and says so", async () => {
  const path = await ingestedIncident(WEDGE);
  const out = join(scratchDir("kvrewind-parquet-unanalyzed-"), "wedge");
  const r = kvrewind("export", path, "--format", "parquet", "--out", out);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, `kvrewind: ${path}: no analysis stored, so findings.parquet has no rows (\`kvrewind analyze ${path}\` stores one)\n`);
  assert.deepEqual(await duck.rows(`SELECT count(*) FROM read_parquet('${out}/findings.parquet')`), [["0"]]);
  assert.deepEqual(await duck.rows(`SELECT count(*) > 0, min(incident) FROM read_parquet('${out}/events.parquet')`), [[true, "ingested.db"]], "named after the file without an analysis");
});
