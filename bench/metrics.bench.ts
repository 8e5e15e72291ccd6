// `npm run bench:metrics`: the Prometheus figures of issue 28.
//   1. A 24 h query_range export of 16 ranks (8 prefill, 8 decode TP ranks)
//      at 15 s steps: 6 SGLang series a rank and an `up` series an instance,
//      98 series of 5,761 samples (564,578 samples, one line as curl saves
//      it), ingested by the CLI (`kvrewind ingest FILE`). Target ≤ 5 s.
//   2. The same series backfilled into a local Prometheus (Debian's
//      `prometheus`, `promtool tsdb create-blocks-from openmetrics`) and
//      pulled by the CLI (`kvrewind ingest --prometheus URL --from --to`).
//      Target ≤ 10 s.
// Wall seconds of the whole command (start-up, ingest, derive), best of
// BENCH_RUNS (default 2), each into a fresh database; the machine's size printed.

import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync, createWriteStream } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createServer } from "node:net";

const MAIN = fileURLToPath(new URL("../bundle/main.js", import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 2);
const FROM_S = Date.UTC(2026, 10, 19, 4, 30) / 1000;
const STEP_S = 15;
const POINTS = (24 * 3600) / STEP_S + 1;
const MODEL = "deepseek-ai/DeepSeek-V3.2";
const PER_RANK = ["num_running_reqs", "num_queue_reqs", "token_usage", "num_transfer_failed_reqs_total", "num_bootstrap_failed_reqs_total"];

interface Series {
  metric: Record<string, string>;
  value: (i: number) => number;
}

function seriesOfIncident(): Series[] {
  const out: Series[] = [];
  for (const [role, instance] of [["prefill", "10.0.0.11:30000"], ["decode", "10.0.0.12:30001"]] as const) {
    for (let tp = 0; tp < 8; tp++) {
      const labels = { engine_type: role, instance, job: "sglang", model_name: MODEL, pp_rank: "0", tp_rank: String(tp) };
      const queue = role === "prefill" ? "num_prefill_inflight_queue_reqs" : "num_decode_transfer_queue_reqs";
      out.push({ metric: { __name__: `sglang:${queue}`, ...labels }, value: (i) => (i > POINTS / 2 ? 58 : i % 7) });
      for (const name of PER_RANK) out.push({ metric: { __name__: `sglang:${name}`, ...labels }, value: (i) => (name.endsWith("_total") ? 0 : (i * (tp + 1)) % 97) });
    }
    out.push({ metric: { __name__: "up", instance, job: "sglang" }, value: () => 1 });
  }
  return out;
}

function writeAnswer(path: string, series: Series[]): number {
  const result = series.map(({ metric, value }) => ({ metric, values: Array.from({ length: POINTS }, (_, i) => [FROM_S + i * STEP_S, String(value(i))]) }));
  writeFileSync(path, `${JSON.stringify({ status: "success", data: { resultType: "matrix", result } })}\n`);
  return series.length * POINTS;
}

async function writeOpenMetrics(path: string, series: Series[]): Promise<void> {
  const out = createWriteStream(path);
  for (const { metric, value } of series) {
    const { __name__: name, ...labels } = metric;
    const head = `${name}{${Object.entries(labels).map(([k, v]) => `${k}="${v}"`).join(",")}}`;
    let chunk = "";
    for (let i = 0; i < POINTS; i++) chunk += `${head} ${value(i)} ${FROM_S + i * STEP_S}\n`;
    out.write(chunk);
  }
  out.write("# EOF\n");
  await new Promise((r) => out.end(r));
}

function timeCli(args: string[]): number {
  const started = performance.now();
  const r = spawnSync(process.execPath, [MAIN, ...args], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`kvrewind ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return (performance.now() - started) / 1000;
}

function best(label: string, run: (i: number) => number): number {
  const times = Array.from({ length: RUNS }, (_, i) => run(i));
  const min = Math.min(...times);
  console.log(`${label}: best ${min.toFixed(2)} s of ${times.map((t) => t.toFixed(2)).join(", ")}`);
  return min;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

const dir = mkdtempSync(join(tmpdir(), "kvrewind-metrics-bench-"));
try {
  console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB; node ${process.version}`);
  const series = seriesOfIncident();
  const answer = join(dir, "query_range.json");
  const samples = writeAnswer(answer, series);
  console.log(`export: ${series.length} series × ${POINTS} points = ${samples.toLocaleString("en-US")} samples, 24 h at ${STEP_S} s`);
  const file = best("ingest of the query_range export (target ≤ 5 s)", (i) => timeCli(["ingest", answer, "--db", join(dir, `file-${i}.db`)]));

  await writeOpenMetrics(join(dir, "wedge.om"), series);
  execFileSync("promtool", ["tsdb", "create-blocks-from", "openmetrics", join(dir, "wedge.om"), join(dir, "data")], { stdio: "ignore" });
  writeFileSync(join(dir, "prometheus.yml"), "global:\n  scrape_interval: 15s\nscrape_configs: []\n");
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const prometheus = spawn("prometheus", [`--storage.tsdb.path=${join(dir, "data")}`, `--config.file=${join(dir, "prometheus.yml")}`, `--web.listen-address=127.0.0.1:${port}`, "--storage.tsdb.retention.time=100y"], { stdio: "ignore" });
  try {
    for (let tries = 0; !(await fetch(`${url}/-/ready`).then((r) => r.ok, () => false)); tries++) {
      if (tries > 150) throw new Error(`Prometheus on ${url} not ready in 30 s`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const window = ["--from", String(FROM_S), "--to", String(FROM_S + 24 * 3600)];
    const pull = best("live pull of the window from the local Prometheus (target ≤ 10 s)", (i) => timeCli(["ingest", "--prometheus", url, ...window, "--db", join(dir, `pull-${i}.db`)]));
    console.log(`figures: file ${file.toFixed(2)} s (${file <= 5 ? "within" : "over"} 5 s), pull ${pull.toFixed(2)} s (${pull <= 10 ? "within" : "over"} 10 s)`);
  } finally {
    prometheus.kill("SIGTERM");
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
