// What an ingest refuses and what it counts: nothing readable (exit 2), a
// second, unrelated incident into the same database, another --tz, and error
// counts that stay exact however many lines are broken.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ingest } from "../../ingest/pipeline.js";
import { listSources } from "../../store/read/sources.js";
import { tempDir, withDb, writeTree } from "./bundle.js";
import { KVREWIND_CLI } from "../kvrewindCli.js";

const CLI = KVREWIND_CLI;

function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const BATCH =
  "Decode batch, #running-req: 64, #token: 181234, token usage: 0.43, pre-allocated usage: 0.06, #prealloc-req: 3, " +
  "#transfer-req: 58, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 3712.55, #queue-req: 0";

function decodeLog(day: string, lines = 3): string {
  return Array.from({ length: lines }, (_, i) => `[${day} 14:03:0${i} DP0 TP0] ${BATCH}`).join("\n") + "\n";
}

test("an empty directory, or one of only binary and empty files, exits 2 and names what it found", () => {
  const dir = tempDir("guard-empty");
  mkdirSync(join(dir, "logs"));
  const empty = run(["ingest", join(dir, "logs"), "--db", join(dir, "i.db")]);
  assert.equal(empty.status, 2);
  assert.match(empty.stderr, /no file to ingest in .*logs \(an empty directory or archive\)/);
  writeTree(dir, { "junk/core.1234": Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 1]), "junk/empty.log": "" });
  const junk = run(["ingest", join(dir, "junk"), "--db", join(dir, "i.db")]);
  assert.equal(junk.status, 2);
  assert.match(junk.stderr, /no readable file to ingest \(.*core\.1234: binary content.*empty\.log: empty file\)/);
});

test("a second incident, 13 days away, is refused unless --append says it is the same one; nothing ingested is lost", () => {
  const dir = tempDir("guard-span");
  writeTree(dir, { "june11/d0/decode-tp0.log": decodeLog("2026-06-11"), "june24/d0/decode-tp0.log": decodeLog("2026-06-24") });
  const db = join(dir, "i.db");
  assert.equal(run(["ingest", join(dir, "june11"), "--db", db]).status, 0);
  const refused = run(["ingest", join(dir, "june24"), "--db", db]);
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /the incident spans 2026-06-11T14:03:00\.000000Z \.\. 2026-06-11T14:03:02\.000000Z; the new sources span 2026-06-24T14:03:00.*312 h away — a different incident\? .*--append/);
  withDb(db, (h) => assert.equal(listSources(h).length, 1, "the refused ingest wrote nothing"));
  const appended = run(["ingest", join(dir, "june24"), "--db", db, "--append"]);
  assert.equal(appended.status, 0, appended.stderr);
  withDb(db, (h) => assert.equal(listSources(h).length, 2));
});

test("a second ingest read in another zone is refused without --append", () => {
  const dir = tempDir("guard-tz");
  writeTree(dir, { "a/d0/decode-tp0.log": decodeLog("2026-06-11"), "b/d1/decode-tp0.log": decodeLog("2026-06-11", 4) });
  const db = join(dir, "i.db");
  assert.equal(run(["ingest", join(dir, "a"), "--db", db, "--tz", "Asia/Shanghai"]).status, 0);
  const other = run(["ingest", join(dir, "b"), "--db", db]);
  assert.equal(other.status, 2);
  assert.match(other.stderr, /read in zone Asia\/Shanghai, these would be read in UTC/);
  assert.equal(run(["ingest", join(dir, "b"), "--db", db, "--tz", "Asia/Shanghai"]).status, 0);
});

test("a 5,000-line probe file of broken JSON: 5,000 errors counted, a sample kept, each named by its line", async () => {
  const dir = tempDir("guard-errors");
  const broken = Array.from({ length: 5000 }, (_, i) => `{"ts": 1781186587.${String(i).padStart(6, "0")}, "ev": "kv.post", "room": 89725428852429`).join("\n");
  const good = '{"ts": 1781186587.5, "host": "p0", "role": "prefill", "tp": 0, "ev": "kv.post", "room": 8972542885242963296, "chunk": 0}';
  writeTree(dir, { "p0/probe.jsonl": `${good}\n${broken}\n` });
  const summary = await ingest({ db: join(dir, "i.db"), paths: [dir] });
  const probe = summary.sources[0]!;
  assert.deepEqual([probe.status, probe.format, probe.lines, probe.events, probe.errorCount], ["ingested", "probe-jsonl", 5001, 1, 5000]);
  assert.equal(probe.errors.length, 200);
  assert.deepEqual(probe.errors.slice(0, 2).map((e) => e.line), [2, 3]);
  withDb(join(dir, "i.db"), (h) => assert.equal(listSources(h)[0]!.errorCount, 5000));
});
