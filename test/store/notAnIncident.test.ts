// A SQLite file that is not a kvrewind incident (someone's own database, with
// a table and a row) given to every command, in every place a command takes
// an incident: each refuses it with exit 2 and a message naming it, and the
// file is left as it was, byte for byte and untouched in time, with no
// journal or WAL file made beside it. The server does not discard such a file
// found where an incident's database should be.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { startServer } from "../../ui/server/server.js";
import { scratchDir } from "../scratchDir.js";
import { bundleInputs, incidentCopy } from "../sharedIncident.js";
import { KVREWIND_CLI } from "../kvrewindCli.js";

const MAIN = KVREWIND_CLI;
const HYPOTHESIS = "bootstrap-survives-abort";
const NOT_AN_INCIDENT = "not a kvrewind incident file (a SQLite file without kvrewind's tables); it was left as it was";

interface Run {
  args: string[];
  code: number | null;
  out: string;
  err: string;
}

function kvrewind(cwd: string, args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ args, code, out, err }));
  });
}

/** Runs every command, two at a time (the processes only start up and refuse). */
async function runAll(cwd: string, commands: string[][]): Promise<Run[]> {
  const runs: Run[] = [];
  for (let i = 0; i < commands.length; i += 2) runs.push(...(await Promise.all(commands.slice(i, i + 2).map((args) => kvrewind(cwd, args)))));
  return runs;
}

/** Someone's own SQLite database: a table with a row, in the default rollback-journal mode. */
function foreignDatabase(path: string): void {
  const db = new Database(path);
  db.exec("CREATE TABLE recipes (name TEXT NOT NULL, minutes INTEGER); INSERT INTO recipes VALUES ('bread', 240)");
  db.close();
}

function fingerprint(path: string): { sha256: string; mtimeMs: number; size: number } {
  const st = statSync(path);
  return { sha256: createHash("sha256").update(readFileSync(path)).digest("hex"), mtimeMs: st.mtimeMs, size: st.size };
}

test("every command given a SQLite file that is not an incident refuses it with exit 2, naming it, and leaves it byte for byte as it was", async () => {
  const dir = scratchDir("kvrewind-foreign-");
  const foreign = "recipes.db";
  foreignDatabase(join(dir, foreign));
  writeFileSync(join(dir, "decode-tp0.log"), "[2026-06-20 14:00:00 DP0 TP0] Decode batch, #running-req: 1, #token: 100, token usage: 0.01, #queue-req: 0\n");
  // A real incident beside it, for the commands that take two: a copy of the one the hand-bundle tests build (it may be written to).
  const { path: incident } = await incidentCopy(bundleInputs("healthy-no-probe"));
  const before = fingerprint(join(dir, foreign));

  const asIncident = [
    ["query", foreign, "SELECT * FROM recipes"],
    ["analyze", foreign],
    ["analyze", "decode-tp0.log", "--db", foreign],
    ["analyze", incident, "--baseline", foreign],
    ["replay", foreign],
    ["replay", foreign, "--at", "1"],
    ["export", foreign, "--format", "chrome-json", "--out", "trace.json"],
    ["export", foreign, "--format", "parquet", "--out", "exports"],
    ["diff", foreign, incident],
    ["diff", incident, foreign],
    ["check", foreign, HYPOTHESIS],
    ["check", incident, foreign, HYPOTHESIS],
    ["check", "decode-tp0.log", "--db", foreign, HYPOTHESIS],
    ["ingest", "decode-tp0.log", "--db", foreign],
    ["ingest", "decode-tp0.log", "--db", foreign, "--append"],
  ];
  for (const run of await runAll(dir, asIncident)) {
    const what = run.args.join(" ");
    assert.equal(run.code, 2, `${what}: ${run.err}`);
    assert.equal(run.out, "", what);
    assert.equal(run.err, `kvrewind: ${foreign}: ${NOT_AN_INCIDENT}\n`, what);
  }

  // Given where a log or a data directory belongs, it is refused as what it is not.
  const elsewhere = await runAll(dir, [
    ["ingest", foreign, "--db", "new.db"],
    ["serve", "--data-dir", foreign, "--port", "0"],
    ["demo", "--data-dir", foreign, "--port", "0"],
  ]);
  assert.deepEqual(
    elsewhere.map((r) => [r.args[0], r.code, r.out, r.err]),
    [
      ["ingest", 2, "", `kvrewind: no readable file to ingest (${foreign}: binary content (NUL bytes); not a log, probe or dump file)\n`],
      ["serve", 2, "", `kvrewind: ${foreign}: not a directory; the data directory is a folder where the server keeps its incidents (an incident file is read with \`kvrewind analyze\` or \`query\`)\n`],
      ["demo", 2, "", `kvrewind: ${foreign}: not a directory; the data directory is a folder where the server keeps its incidents (an incident file is read with \`kvrewind analyze\` or \`query\`)\n`],
    ],
  );

  assert.deepEqual(fingerprint(join(dir, foreign)), before, "the same bytes, the same modification time");
  assert.deepEqual(readdirSync(dir).sort(), ["decode-tp0.log", foreign], "no journal, WAL, new incident, trace file or export folder made beside it");
  const db = new Database(join(dir, foreign), { readonly: true });
  assert.deepEqual(db.prepare("SELECT name FROM sqlite_master").pluck().all(), ["recipes"], "no table of kvrewind's added");
  db.close();
});

test("a server that finds a SQLite file of something else where an incident's database should be fails that incident, naming the file, and leaves the file as it was", async () => {
  const dataDir = scratchDir("kvrewind-foreign-data-");
  const folder = join(dataDir, "incidents", "recipes");
  mkdirSync(join(folder, "input"), { recursive: true });
  writeFileSync(join(folder, "incident.json"), JSON.stringify({ id: "recipes", name: "recipes", createdAt: "2026-06-20T14:00:00.000Z", status: "ready", inputBytes: 0, inputFiles: 0 }));
  foreignDatabase(join(folder, "incident.db"));
  const before = fingerprint(join(folder, "incident.db"));
  const logs: string[] = [];
  const server = await startServer({ dataDir, port: 0, log: (l) => logs.push(l) });
  try {
    const list = (await (await fetch(new URL("api/incidents", server.url))).json()) as { incidents: { id: string; status: string; error?: string }[] };
    assert.deepEqual(list.incidents.map((i) => [i.id, i.status, i.error]), [["recipes", "failed", `incident.db: ${NOT_AN_INCIDENT}`]]);
    assert.deepEqual(logs, [`incident recipes: ${join(folder, "incident.db")}: ${NOT_AN_INCIDENT}`]);
  } finally {
    await server.close();
  }
  assert.deepEqual(fingerprint(join(folder, "incident.db")), before);
  assert.deepEqual(readdirSync(folder).sort(), ["incident.db", "incident.json", "input"]);
});
