// `kvrewind ingest --prometheus` against a real Prometheus (Debian's
// `prometheus` package, which brings promtool; .ci/run installs it): the
// metrics-wedge bundle's series are backfilled with `promtool tsdb
// create-blocks-from openmetrics`, Prometheus serves them on a loopback
// port, and the real CLI pulls them into a real incident database. Then the
// failures: a Prometheus that is down, one that refuses, one that never
// answers — each a clear message, exit 2, and nothing written.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createServer as createNetServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { StoredEvent } from "../../domain/event.js";
import { iterateEvents } from "../../store/read/events.js";
import { listSources } from "../../store/read/sources.js";
import { tempDir, withDb } from "../ingest/bundle.js";
import { KVREWIND_CLI } from "../kvrewindCli.js";

const MAIN = KVREWIND_CLI;
const BUNDLE = fileURLToPath(new URL("../../../test/bundles/metrics-wedge", import.meta.url));
const WINDOW = ["--from", "2026-11-20T03:30:00Z", "--to", "2026-11-20T04:30:00Z"];
const us = (hms: string): number => Date.parse(`2026-11-20T${hms}Z`) * 1000;
const run = promisify(execFile);

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  seconds: number;
}

async function cli(args: string[]): Promise<CliResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr, seconds: (performance.now() - started) / 1000 }));
  });
}

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

async function onPath(tool: string): Promise<boolean> {
  try {
    await run("sh", ["-c", `command -v ${tool}`]);
    return true;
  } catch {
    return false;
  }
}

/** The bundle's query_range answer as an OpenMetrics file promtool backfills (seconds timestamps, `# EOF`). */
function openMetricsOf(answerPath: string): string {
  const answer = JSON.parse(readFileSync(answerPath, "utf8")) as { data: { result: { metric: Record<string, string>; values: [number, string][] }[] } };
  const byName = new Map<string, string[]>();
  for (const { metric, values } of answer.data.result) {
    const { __name__: name, ...labels } = metric;
    const series = `${name}{${Object.entries(labels).map(([k, v]) => `${k}="${v}"`).join(",")}}`;
    const lines = byName.get(name!) ?? [];
    for (const [t, v] of values) lines.push(`${series} ${v} ${t}`);
    byName.set(name!, lines);
  }
  return [...[...byName.values()].flat(), "# EOF", ""].join("\n");
}

let prometheus: ChildProcess | undefined;
let url = "";
const servers: Server[] = [];
const dir = tempDir("prometheus");

before(async () => {
  const missing = [];
  for (const tool of ["prometheus", "promtool"]) if (!(await onPath(tool))) missing.push(tool);
  assert.deepEqual(missing, [], "the live-pull tests need Debian's `prometheus` package (apt-get install prometheus; .ci/run installs it)");
  writeFileSync(join(dir, "wedge.om"), openMetricsOf(join(BUNDLE, "query_range.json")));
  await run("promtool", ["tsdb", "create-blocks-from", "openmetrics", join(dir, "wedge.om"), join(dir, "data")]);
  writeFileSync(join(dir, "prometheus.yml"), "global:\n  scrape_interval: 15s\nscrape_configs: []\n");
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  prometheus = spawn(
    "prometheus",
    [`--storage.tsdb.path=${join(dir, "data")}`, `--config.file=${join(dir, "prometheus.yml")}`, `--web.listen-address=127.0.0.1:${port}`, "--storage.tsdb.retention.time=100y"],
    { stdio: "ignore" },
  );
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ready = await fetch(`${url}/-/ready`).then((r) => r.ok, () => false);
    if (ready) break;
    assert.ok(Date.now() < deadline, `Prometheus on ${url} was not ready within 30 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
});

after(() => {
  prometheus?.kill("SIGTERM");
  for (const s of servers) s.closeAllConnections(), s.close();
});

function storedSamples(db: string): StoredEvent[] {
  return withDb(db, (d) => [...iterateEvents(d)]);
}

test("the live pull stores every SGLang series of the window, with the wedge's values, times, hosts, roles and ranks", async () => {
  const db = join(dir, "pulled.db");
  const r = await cli(["ingest", "--prometheus", url, ...WINDOW, "--db", db, "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const events = storedSamples(db);
  assert.equal(events.length, 14 * 241, "the 14 sglang: series at 15 s steps; `up` is not selected");
  const transfer = events.filter((e) => e.attrs!.metric === "sglang:num_decode_transfer_queue_reqs");
  assert.equal(transfer.length, 241);
  assert.ok(transfer.every((e) => e.host === "10.0.0.12" && e.role === "decode" && e.tp === 0 && e.pp === 0));
  const at = (series: StoredEvent[], hms: string) => series.find((e) => e.tsUs === us(hms))?.attrs!.value;
  assert.deepEqual(["03:37:45", "03:40:00", "03:40:15", "04:30:00"].map((t) => at(transfer, t)), [2, 0, 3, 3]);
  const inflight = events.filter((e) => e.attrs!.metric === "sglang:num_prefill_inflight_queue_reqs");
  assert.ok(inflight.every((e) => e.host === "10.0.0.11" && e.role === "prefill"));
  assert.deepEqual(["03:40:00", "03:40:15", "04:30:00"].map((t) => at(inflight, t)), [0, 3, 3]);
  const prealloc = events.filter((e) => e.attrs!.metric === "sglang:num_decode_prealloc_queue_reqs");
  assert.equal(at(prealloc, "04:30:00"), 50);
  const sources = withDb(db, (d) => listSources(d));
  assert.deepEqual(sources.map((s) => [s.path, s.format]), [[`prometheus ${url} 2026-11-20T03:30:00.000000Z..2026-11-20T04:30:00.000000Z step 15s match {__name__=~"sglang:.*"}`, "prometheus-api-json"]]);
  const last = transfer.at(-1)!;
  assert.deepEqual(events.map((e) => e.line).sort((a, b) => a - b), Array.from({ length: events.length }, (_, i) => i + 1), "each sample's line is its index in the pull");
  assert.match(last.text, /^sglang:num_decode_transfer_queue_reqs\{.*instance="10\.0\.0\.12:30001".*\} 3 @2026-11-20T04:30:00\.000000Z$/);
});

test("--match narrows the pull to the selectors given", async () => {
  const db = join(dir, "matched.db");
  const r = await cli(["ingest", "--prometheus", url, ...WINDOW, "--match", "sglang:num_decode_transfer_queue_reqs", "--match", 'up{instance="10.0.0.11:30000"}', "--db", db]);
  assert.equal(r.code, 0, r.stderr);
  const metrics = storedSamples(db).map((e) => e.attrs!.metric);
  assert.deepEqual([...new Set(metrics)].sort(), ["sglang:num_decode_transfer_queue_reqs", "up"]);
  assert.equal(metrics.length, 2 * 241);
  assert.match(r.stdout, /not understood: 241 lines .* a series SGLang does not write: up/s);
});

test("a Prometheus that is down: the URL named, exit 2, no database created", async () => {
  const down = `http://127.0.0.1:${await freePort()}`;
  const db = join(dir, "down.db");
  const r = await cli(["ingest", "--prometheus", down, ...WINDOW, "--db", db]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, new RegExp(`Prometheus at ${down} could not be reached \\(ECONNREFUSED\\); nothing was ingested`));
  assert.equal(existsSync(db), false);
});

test("a Prometheus that refuses the query: its error named, exit 2, an existing database unchanged", async () => {
  const db = join(dir, "kept.db");
  assert.equal((await cli(["ingest", BUNDLE, "--db", db])).code, 0);
  const before = { bytes: statSync(db).size, events: storedSamples(db).length };
  const r = await cli(["ingest", "--prometheus", url, ...WINDOW, "--match", "sglang:num{", "--db", db, "--append"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, new RegExp(`Prometheus at ${url} refused /api/v1/series \\(HTTP 400\\): bad_data: .*parse error`));
  assert.deepEqual({ bytes: statSync(db).size, events: storedSamples(db).length }, before);
});

test("an HTTP error and a server that never answers: exit 2 within the deadline, nothing written", async () => {
  const refusing = createServer((_req, res) => res.writeHead(503, { "content-type": "text/plain" }).end("upstream unavailable"));
  const silent = createServer(() => {});
  servers.push(refusing, silent);
  const listen = async (s: Server) => {
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    return `http://127.0.0.1:${(s.address() as { port: number }).port}`;
  };
  const refusingUrl = await listen(refusing);
  const silentUrl = await listen(silent);
  const r503 = await cli(["ingest", "--prometheus", refusingUrl, ...WINDOW, "--db", join(dir, "503.db")]);
  assert.equal(r503.code, 2);
  assert.match(r503.stderr, new RegExp(`Prometheus at ${refusingUrl} answered HTTP 503 to /api/v1/series: upstream unavailable; nothing was ingested`));
  assert.equal(existsSync(join(dir, "503.db")), false);
  const slow = await cli(["ingest", "--prometheus", silentUrl, ...WINDOW, "--prometheus-timeout", "2", "--db", join(dir, "slow.db")]);
  assert.equal(slow.code, 2);
  assert.match(slow.stderr, new RegExp(`Prometheus at ${silentUrl} did not answer within 2\\.0 s; nothing was ingested`));
  assert.ok(slow.seconds < 10, `the wait is bounded (${slow.seconds.toFixed(1)} s)`);
  assert.equal(existsSync(join(dir, "slow.db")), false);
});
