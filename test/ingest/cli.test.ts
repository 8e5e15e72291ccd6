import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { eventRows, logStamp, skewedBundle, T0, tempDir, withDb, writeTree } from "./bundle.js";
import { KVREWIND_CLI } from "../kvrewindCli.js";

const CLI = KVREWIND_CLI;

function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A decode log of `lines` batch lines (about 260 bytes each), written in pieces. */
function bigDecodeLog(path: string, lines: number): void {
  const fd = openSync(path, "w");
  let buf = "";
  for (let i = 0; i < lines; i++) {
    buf += `${logStamp(T0 + i * 1000)} DP0 TP0] Decode batch, #running-req: ${i % 80}, #token: ${181234 + i}, token usage: 0.43, pre-allocated usage: 0.06, #prealloc-req: 3, #transfer-req: ${i % 60}, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 3712.55, #queue-req: 0\n`;
    if (buf.length > 1 << 20) {
      writeSync(fd, buf);
      buf = "";
    }
  }
  writeSync(fd, buf);
  closeSync(fd);
}

function integrity(db: string): string {
  return withDb(db, (h) => h.pragma("integrity_check", { simple: true }) as string);
}

test("--json prints the summary; piped, nothing goes to stderr", () => {
  const dir = tempDir("cli-json");
  const bundle = skewedBundle(join(dir, "bundle"), 40_000);
  const db = join(dir, "incident.db");
  const r = run(["ingest", bundle, "--db", db, "--json"]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, "");
  const summary = JSON.parse(r.stdout) as { db: string; eventsAdded: number; clockOffsetsUs: Record<string, number>; sources: Record<string, unknown>[] };
  assert.equal(summary.db, db);
  assert.equal(summary.eventsAdded, 16);
  assert.deepEqual(summary.clockOffsetsUs, { d0: 0, p0: -38_001 });
  const log = summary.sources.find((s) => String(s.path).endsWith("p0/prefill-tp0.log"))!;
  assert.deepEqual(
    Object.keys(log).sort(),
    [
      "bytes", "errorCount", "errors", "events", "first", "format", "host", "inferred", "last", "lines", "pages", "path", "ranks", "role", "sha256",
      "status", "timeOrigin", "unparsed", "unparsedShapes", "wrapper",
    ].sort(),
  );
  assert.deepEqual([log.status, log.format, log.host, log.role, log.ranks, log.lines, log.events, log.pages], ["ingested", "sglang-log", "p0", "prefill", ["prefill/tp0"], 8, 8, 0]);
  // The first got-info, stamped 10:15:32.002, moved by -38.001 ms.
  assert.equal(log.first, "2026-08-20T10:15:31.963999Z");
});

test("usage and input errors exit 2 with a message naming the problem", () => {
  const dir = tempDir("cli-errors");
  const db = join(dir, "i.db");
  const missing = run(["ingest", join(dir, "absent"), "--db", db]);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /absent: no such file or directory/);
  assert.equal(existsSync(db), false);
  const log = writeTree(join(dir, "b"), { "d0/decode-tp0.log": `${logStamp(T0)} TP0] room=1 is bootstrapped\n` });
  assert.equal(run(["ingest", log]).status, 2);
  const role = run(["ingest", log, "--db", db, "--role", "verifier"]);
  assert.equal(role.status, 2);
  assert.match(role.stderr, /role/);
  const tz = run(["ingest", log, "--db", db, "--tz", "Mars/Olympus"]);
  assert.equal(tz.status, 2);
  assert.match(tz.stderr, /--tz Mars\/Olympus/);
});

test("a refused file is named and exits 3 (could not look); the other files are ingested, and analyze of the same folder agrees", () => {
  const dir = tempDir("cli-refused");
  const bundle = writeTree(join(dir, "b"), {
    "d0/decode-tp0.log": `${logStamp(T0)} DP0 TP0] Sending to prefill server with bootstrap room 42 is_dummy=False\n`,
    "d0/core.dump": Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x00]),
  });
  const db = join(dir, "i.db");
  const r = run(["ingest", bundle, "--db", db]);
  assert.equal(r.status, 3);
  assert.match(r.stderr, /not read: .*core\.dump: refused \(binary content/);
  assert.match(r.stdout, /ingested 1 of 2 inputs/);
  assert.equal(withDb(db, (h) => eventRows(h).length), 1);
  const analyzed = run(["analyze", bundle, "--json"]);
  assert.equal(analyzed.status, 3, "no finding at or above high, but an input was refused: not clean");
  assert.match(analyzed.stderr, /not read: .*core\.dump: refused/);
  assert.equal(run(["analyze", db, "--json"]).status, 3, "the stored incident remembers the refused input");
  const whole = writeTree(join(dir, "whole"), { "d0/decode-tp0.log": `${logStamp(T0)} DP0 TP0] Sending to prefill server with bootstrap room 42 is_dummy=False\n` });
  assert.equal(run(["ingest", whole, "--db", join(dir, "whole.db")]).status, 0);
  assert.equal(run(["analyze", whole, "--json"]).status, 0);
});

test("the default summary fits a screen: totals, the most frequent unparsed shapes across files, what was refused; --verbose lists each input", () => {
  const dir = tempDir("cli-summary");
  const files: Record<string, string | Buffer> = { "d0/core.dump": Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x00]) };
  for (let tp = 0; tp < 8; tp++) {
    files[`d0/decode-tp${tp}.log`] = [
      `${logStamp(T0)} DP0 TP${tp}] Sending to prefill server with bootstrap room 4${tp} is_dummy=False`,
      `${logStamp(T0 + 1000)} DP0 TP${tp}] Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail mem=${40 + tp}.5 GB`,
      `${logStamp(T0 + 2000)} DP0 TP${tp}] Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail mem=${50 + tp}.5 GB`,
      "",
    ].join("\n");
  }
  const bundle = writeTree(join(dir, "b"), files);
  const r = run(["ingest", bundle, "--db", join(dir, "i.db")]);
  assert.equal(r.status, 3);
  const out = r.stdout.trimEnd().split("\n");
  assert.ok(out.length <= 12, `one screen, not a block per file:\n${r.stdout}`);
  assert.match(out[0]!, /i\.db: ingested 8 of 9 inputs \(24 lines\); 24 events \(24 added\)/);
  assert.match(out[1]!, /^ {2}8 ranks, 1 host \(d0\); /);
  assert.match(r.stdout, /not understood: 16 lines \(66\.7 % of records\) in 8 files/);
  assert.match(r.stdout, /\n +16 {2}Load weight end\. .* \(.*decode-tp0\.log:2\)/, "one shape, counted across the eight files");
  assert.match(r.stdout, /refused 1 input:\n {2}.*core\.dump: binary content/);
  assert.doesNotMatch(r.stdout, /^ingested {2}/m);
  const verbose = run(["ingest", bundle, "--db", join(dir, "v.db"), "--verbose"]);
  assert.equal(verbose.stdout.match(/^ingested {2}.*decode-tp\d\.log/gm)?.length, 8);
});

test("--help of every command states the exit-code contract", () => {
  for (const command of [[], ["ingest"], ["analyze"], ["check"]]) {
    const help = run([...command, "--help"]);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /Exit codes \(every command\):[\s\S]*3 {2}nothing at or above --fail-on, but some input was refused/, command.join(" "));
  }
});

test("kill -9 in the middle of an ingest: the database opens, the earlier source is intact, the partial one absent", async () => {
  const dir = tempDir("cli-kill");
  const db = join(dir, "i.db");
  const small = writeTree(join(dir, "small"), { "p0/prefill-tp0.log": `${logStamp(T0)} TP0] room=7 is bootstrapped\n` });
  assert.equal(run(["ingest", small, "--db", db]).status, 0);
  const big = join(dir, "big");
  mkdirSync(big);
  bigDecodeLog(join(big, "decode-tp0.log"), 200_000);
  const before = statSync(db).size;

  const child = spawn(process.execPath, [CLI, "ingest", big, "--db", db, "--role", "decode"], { stdio: "ignore" });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
  let killedMidLoad = false;
  // Kill once blocks are landing in the file under a live rollback journal: the sources are parsed
  // and their rows are being merged and written (the 50 MB log makes an ~8 MB incident; the blocks
  // land only once every source is parsed, so the kill comes early in their writing, far from the commit).
  while (child.exitCode === null) {
    if (existsSync(`${db}-journal`) && statSync(db).size > before + 1024 * 1024) {
      killedMidLoad = child.kill("SIGKILL");
      break;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.equal(await exited, "SIGKILL");
  assert.ok(killedMidLoad, "the ingest finished before it could be killed mid-load");

  assert.equal(integrity(db), "ok");
  withDb(db, (h) => {
    const sources = h.prepare("SELECT path, status FROM sources").all() as { path: string; status: string }[];
    assert.deepEqual(sources, [{ path: join(small, "p0/prefill-tp0.log"), status: "complete" }]);
    assert.deepEqual(
      eventRows(h).map((r) => [r.seq, r.kind]),
      [[1, "boot.bootstrapped"]],
    );
    assert.equal(h.pragma("journal_mode", { simple: true }), "wal");
  });
  // And the same ingest, run again, completes.
  const again = run(["ingest", big, "--db", db, "--role", "decode", "--json"]);
  assert.equal(again.status, 0, again.stderr);
  assert.equal((JSON.parse(again.stdout) as { eventsTotal: number }).eventsTotal, 200_001);
});

test("two ingests into one database at once are serialized: both complete, nothing lost or doubled", async () => {
  const dir = tempDir("cli-concurrent");
  const db = join(dir, "i.db");
  const a = join(dir, "a");
  mkdirSync(a);
  bigDecodeLog(join(a, "decode-tp0.log"), 60_000);
  const b = skewedBundle(join(dir, "b"), 40_000);
  const start = (paths: string[]): Promise<{ code: number | null; out: string; err: string }> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [CLI, "ingest", ...paths, "--db", db, "--role", "decode", "--json"], { stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      let err = "";
      child.stdout.on("data", (d: Buffer) => (out += d.toString()));
      child.stderr.on("data", (d: Buffer) => (err += d.toString()));
      child.on("exit", (code) => resolve({ code, out, err }));
    });
  const results = await Promise.all([start([a]), start([b]), start([a])]);
  assert.deepEqual(
    results.map((r) => r.code),
    [0, 0, 0],
    results.map((r) => r.err).join("\n"),
  );
  const statuses = results.flatMap((r) => (JSON.parse(r.out) as { sources: { status: string }[] }).sources.map((s) => s.status)).sort();
  // The big log is ingested once and found a duplicate once; the skewed bundle's three files once.
  assert.deepEqual(statuses, ["duplicate", "ingested", "ingested", "ingested", "ingested"]);
  assert.equal(integrity(db), "ok");
  withDb(db, (h) => {
    const rows = eventRows(h);
    assert.equal(rows.length, 60_000 + 16);
    assert.equal(rows[rows.length - 1]!.seq, rows.length);
    assert.equal(h.prepare("SELECT COUNT(*) FROM sources WHERE status = 'complete'").pluck().get(), 4);
  });
});
