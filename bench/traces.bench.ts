// `npm run bench:traces`: a collector's OTLP/JSON file of 100,000 SGLang spans
// (BENCH_SPANS) ingested through the real pipeline (sniff, parse worker,
// store) into a fresh incident file; prints the wall time (target ≤ 5 s,
// issue 28), spans/s, MB/s, the CPU seconds of all its threads and the
// machine's load. The spans are SGLang's
// PD shapes (ingest/formats/traces/sglangSpans.ts): per request and side a
// `Bootstrap Room 0x…` root, a `<role> Req <rid>` span, a scheduler thread
// span and its stage slices, exported in batches of 64 spans a line (the
// BatchSpanProcessor's default) by two hosts; one request in eight wedged
// (its slices only, their parents never exported). Figures are printed, not
// checked: speed is never a test.

import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { ingest } from "../ingest/pipeline.js";

const SPANS = Number(process.env.BENCH_SPANS ?? 100_000);
const BATCH = 64;
const T0_NS = 1_795_145_880_000_000_000n; // 2026-11-20T03:38:00Z
const PREFILL = ["prefill_prepare", "prefill_bootstrap", "prefill_waiting", "prefill_forward", "prefill_transfer_kv_cache"];
const DECODE = ["decode_prepare", "decode_bootstrap", "decode_transferred", "decode_waiting", "decode_forward"];

const hex = (n: bigint, digits: number) => n.toString(16).padStart(digits, "0");
const str = (v: string) => ({ stringValue: v });
const int = (v: number) => ({ intValue: String(v) });

interface Side {
  host: string;
  label: string;
  machineId: string;
  pid: number;
  stages: string[];
}
const SIDES: Side[] = [
  { host: "p0", label: "Prefill", machineId: "5f1c9a7e2b4d4e0f9a1c3b5d7e9f0a12", pid: 48213, stages: PREFILL },
  { host: "d0", label: "Decode", machineId: "c3d8e1f46a7b4c2d8e9f0a1b2c3d4e5f", pid: 51877, stages: DECODE },
];

/** One request's spans on one side, each as OTLP/JSON writes it. */
function requestSpans(req: number, side: Side, sideNo: number): object[] {
  const room = 1_000_000_000_000_000_000n + BigInt(req) * 7_919n;
  const rid = hex(BigInt(req) * 2_654_435_761n + 17n, 32);
  const traceId = hex(BigInt(req * 2 + sideNo + 1) * 0x9e3779b97f4a7c15n, 32).slice(-32);
  const id = (k: number) => hex(BigInt(req) * 64n + BigInt(sideNo * 16 + k + 1), 16);
  const t0 = T0_NS + BigInt(req) * 20_000_000n;
  const ns = (ms: number) => String(t0 + BigInt(ms) * 1_000_000n);
  const wedged = req % 8 === 7;
  const slices = side.stages.slice(0, wedged ? 2 : side.stages.length).map((name, k) => ({
    traceId, spanId: id(3 + k), parentSpanId: id(2), flags: 256, name, kind: 1, startTimeUnixNano: ns(3 + 40 * k), endTimeUnixNano: ns(3 + 40 * (k + 1)),
    ...(k > 0 ? { links: [{ traceId, spanId: id(2 + k), flags: 256 }] } : {}), status: {},
  }));
  if (wedged) return slices;
  const end = ns(3 + 40 * side.stages.length);
  const thread = `${side.label} Scheduler [TP 0] (host:${side.machineId.slice(0, 8)} | pid:${side.pid})`;
  return [
    ...slices,
    { traceId, spanId: id(2), parentSpanId: id(1), flags: 256, name: thread, kind: 1, startTimeUnixNano: ns(3), endTimeUnixNano: end,
      attributes: [{ key: "tp_rank", value: int(0) }, { key: "host_id", value: str(side.machineId) }, { key: "pid", value: int(side.pid) }, { key: "thread_label", value: str(`${side.label} Scheduler`) }], status: {} },
    { traceId, spanId: id(1), parentSpanId: id(0), flags: 256, name: `${side.label.toLowerCase()} Req ${rid.slice(0, 8)}`, kind: 1, startTimeUnixNano: ns(0), endTimeUnixNano: end, attributes: [{ key: "rid", value: str(rid) }], status: {} },
    { traceId, spanId: id(0), parentSpanId: "", flags: 256, name: `Bootstrap Room 0x${room.toString(16)}`, kind: 1, startTimeUnixNano: ns(0), endTimeUnixNano: end, attributes: [{ key: "bootstrap_room", value: str(`0x${room.toString(16)}`) }], status: {} },
  ];
}

function exportLine(host: string, spans: object[]): string {
  const resource = { attributes: [{ key: "host.name", value: str(host) }, { key: "service.name", value: str("sglang") }, { key: "telemetry.sdk.language", value: str("python") }] };
  return JSON.stringify({ resourceSpans: [{ resource, scopeSpans: [{ scope: { name: "sglang server" }, spans }], schemaUrl: "" }] });
}

/** The file: each side's spans in batches of 64 a line, the sides' lines interleaved. */
function traceFile(spans: number): { text: string; spans: number } {
  const pending: object[][] = [[], []];
  const lines: string[] = [];
  let written = 0;
  for (let req = 0; written < spans; req++) {
    SIDES.forEach((side, s) => {
      for (const span of requestSpans(req, side, s)) {
        if (written >= spans) return;
        pending[s]!.push(span);
        written++;
        if (pending[s]!.length === BATCH) lines.push(exportLine(side.host, pending[s]!.splice(0)));
      }
    });
  }
  SIDES.forEach((side, s) => pending[s]!.length > 0 && lines.push(exportLine(side.host, pending[s]!)));
  return { text: lines.join("\n") + "\n", spans: written };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "kvrewind-bench-traces-"));
  try {
    const { text, spans } = traceFile(SPANS);
    mkdirSync(join(dir, "otel"));
    const file = join(dir, "otel", "traces.jsonl");
    writeFileSync(file, text);
    const bytes = statSync(file).size;
    const before = loadavg();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const phases: Record<string, number> = {};
    let phase = "";
    let phaseStart = t0;
    const summary = await ingest({
      db: join(dir, "i.db"),
      paths: [file],
      onProgress: (p) => {
        if (p.phase === phase) return;
        const now = performance.now();
        if (phase) phases[phase] = (now - phaseStart) / 1000;
        phase = p.phase;
        phaseStart = now;
      },
    });
    const seconds = (performance.now() - t0) / 1000;
    phases[phase] = (performance.now() - phaseStart) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const src = summary.sources[0]!;
    console.log(`OTLP/JSON file: ${spans.toLocaleString("en-US")} spans in ${text.split("\n").length - 1} lines, ${(bytes / 1e6).toFixed(1)} MB`);
    console.log(`ingest → ${summary.eventsTotal.toLocaleString("en-US")} events (${src.format}, ${src.errorCount} issues) in ${seconds.toFixed(2)} s wall (target ≤ 5 s): ${Object.entries(phases).map(([k, v]) => `${k} ${v.toFixed(2)} s`).join(", ")}`);
    console.log(`${Math.round(spans / seconds).toLocaleString("en-US")} spans/s, ${(bytes / 1e6 / seconds).toFixed(1)} MB/s, incident file ${(statSync(join(dir, "i.db")).size / 1e6).toFixed(1)} MB`);
    console.log(`CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s (all threads: main, parse workers, store): on a shared machine a steadier figure than the wall`);
    console.log(`machine: ${availableParallelism()} cores; load average before ${before.map((l) => l.toFixed(1)).join(" ")}, after ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  } finally {
    if (process.env.BENCH_KEEP === undefined) rmSync(dir, { recursive: true, force: true }); else console.log(dir);
  }
}

await main();
