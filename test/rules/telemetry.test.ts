// The operator's telemetry as evidence (docs/evidence.md §5a): what the
// analysis concludes from Prometheus series, request traces and crash dumps
// alone, and that the same wedge seen in logs, series and spans is one
// finding. Expectations are written from the bundles' story
// (test/bundles/README.md: metrics-wedge, traces-wedge, wedge-logs).

import { after, test } from "node:test";
import assert from "node:assert/strict";
import { analyzeIncident } from "../../analyzer/rules/index.js";
import { stateAt } from "../../analyzer/replay/timeTravel.js";
import { KVPoll } from "../../domain/vocabulary.js";
import { openIncident } from "../../store/db.js";
import { BUNDLE_NAMES, bundle, cleanUp, coverage, violated } from "./handBundles.js";
import { buildIncident } from "./incidentBuilder.js";
import { bundleInputs, incidentCopy } from "../sharedIncident.js";

after(cleanUp);

const WEDGED = ["8972542885242963296", "5830149913321000001", "7000000000000000007"];
const T = (iso: string) => Date.parse(iso) * 1000;

test("series alone: both PD queues frozen at 3 while work arrived, with the samples as witnesses; nothing is said of failures no series shows", async () => {
  const { report } = await bundle("metrics-wedge");
  const [wedge, ...more] = violated(report, "transfer-stall");
  assert.equal(more.length, 0);
  assert.match(wedge!.title, /^Transfer path wedged from 2026-11-20T03:40:15\.000Z: prefill inflight queue frozen at 3 on 10\.0\.0\.11\/prefill\/tp0, decode transfer queue frozen at 3 on 10\.0\.0\.12\/decode\/tp0$/);
  assert.match(wedge!.explanation, /decode prealloc queue \(sglang:num_decode_prealloc_queue_reqs\) rose from 0 to 50/);
  assert.ok(wedge!.witness.every((w) => w.source === "query_range.json"), wedge!.witness.map((w) => w.source).join(", "));
  assert.ok(wedge!.witness.some((w) => w.text.startsWith("sglang:num_decode_transfer_queue_reqs{") && w.text.endsWith(" 3 @2026-11-20T03:40:15.000000Z")));
  // The failure and abort counters stay at 0 and no server log is given: no failure finding, none claimed absent.
  assert.deepEqual(violated(report, "transport-failure"), []);
  assert.equal(coverage(report, "process-failure").verdict, "undetermined");
  assert.deepEqual(report.suspects, []);
});

test("traces and a crash dump alone: six traces stop without a finish, and the dump names the three rooms that never finished", async () => {
  const { report } = await bundle("traces-wedge");
  const [wedge, ...more] = violated(report, "transfer-stall");
  assert.equal(more.length, 0);
  assert.equal(wedge!.title, "Transfer path wedged from 2026-11-20T03:40:00.041Z: 6 request trace(s) that stop");
  assert.deepEqual(wedge!.rooms, WEDGED);
  assert.match(wedge!.explanation, /none name a room: SGLang names it only on the spans that end with the request/);
  assert.ok(wedge!.witness.some((w) => w.source.endsWith("otel/traces.jsonl") && JSON.parse(w.text).name === "decode_bootstrap"), "a stopped trace's last stage, as its own span");
  // The finished rooms' traces run to their end: neither is named.
  assert.ok(!(wedge!.rooms ?? []).includes("1111111111111111111"));
  const [crash] = violated(report, "process-failure");
  assert.equal(crash!.severity, "critical");
  assert.deepEqual(crash!.rooms, WEDGED);
  assert.match(crash!.explanation, /decode showed `the server went down and dumped its requests \(crash dump: 3 unfinished/);
  // The dump came 40 minutes after the traces stopped: the death is not ranked as the wedge's cause.
  assert.deepEqual(report.suspects, []);
});

test("traces in time travel: a finished room's sides move through their stages at the stages' ends", async () => {
  const { db } = await bundle("traces-wedge");
  const room = "1111111111111111111";
  const at = (iso: string) => stateAt(db, { tsUs: T(iso) }, { room }).rooms.find((r) => r.room === room);
  assert.equal(at("2026-11-20T03:38:00.030Z"), undefined, "before its first stage ended, no span says anything of it");
  assert.equal(at("2026-11-20T03:38:00.100Z")!.prefill.state, KVPoll.WaitingForInput, "prefill_bootstrap ended at .041");
  assert.equal(at("2026-11-20T03:38:00.500Z")!.prefill.state, KVPoll.Success, "prefill_transfer_kv_cache ended at .412");
});

test("logs, series and traces of one wedge: one finding, with witnesses from each", async () => {
  const inputs = ["metrics-wedge", "traces-wedge", "wedge-logs"].map(bundleInputs);
  const bundles = inputs[0]!.cwd!.replace(/metrics-wedge$/, "");
  const { path } = await incidentCopy({ cwd: bundles, paths: inputs.flatMap((i) => i.paths.map((p) => `${i.name}/${p}`)), name: "one-story" });
  const db = openIncident(path, { readonly: true });
  const report = analyzeIncident(db);
  db.close();
  const wedges = violated(report, "transfer-stall");
  assert.equal(wedges.length, 1, wedges.map((f) => f.title).join(" | "));
  const w = wedges[0]!;
  assert.match(w.explanation, /read from the batch lines, the queue series, the traces/);
  assert.match(w.explanation, /its batch lines print #transfer-req: 3 1 time\(s\) meanwhile \(wedge-logs\/d0\/sglang-decode\.log:12\)/);
  const from = (dir: string) => w.witness.some((x) => x.source.includes(dir));
  assert.ok(from("metrics-wedge/") && from("traces-wedge/otel/") && from("wedge-logs/d0/"), w.witness.map((x) => x.source).join(", "));
});

test("counters that rise: failed transfers are a transport failure, aborts are recorded low", async () => {
  const series = (metric: string, values: number[]) => ({
    metric: { __name__: metric, engine_type: "decode", instance: "10.0.0.12:30001", job: "sglang", model_name: "m", tp_rank: "0" },
    values: values.map((v, i) => [1795145400 + 15 * i, String(v)]),
  });
  const text = JSON.stringify({
    status: "success",
    data: { resultType: "matrix", result: [series("sglang:num_transfer_failed_reqs_total", [0, 0, 0, 2, 2, 5]), series("sglang:num_aborted_requests_total", [0, 1, 1, 1, 1, 1])] },
  });
  const db = await buildIncident([{ path: "query_range.json", text }]);
  const report = analyzeIncident(db);
  db.close();
  const failures = violated(report, "transport-failure");
  const transfer = failures.find((f) => /num_transfer_failed_reqs_total rose by 5 \(from 0 at 2026-11-20T03:30:30\.000Z by 2026-11-20T03:31:15\.000Z\)/.test(f.title));
  assert.equal(transfer?.severity, "high", failures.map((f) => f.title).join(" | "));
  const aborts = failures.find((f) => /num_aborted_requests_total rose by 1/.test(f.title));
  assert.equal(aborts?.severity, "low");
  assert.ok(!report.suspects.some((s) => s.findings.includes(aborts!.id)), "aborts are no suspect's evidence");
});

test("a hung scheduler: forward progress flat while requests run and scrapes go on; the same stop with nothing to run is no finding", async () => {
  const series = (metric: string, values: number[], labels: Record<string, string> = {}) => ({
    metric: { __name__: metric, engine_type: "decode", instance: "10.0.0.12:30001", job: "sglang", tp_rank: "0", ...labels },
    values: values.map((v, i) => [1795145400 + 15 * i, String(v)]),
  });
  const flat = (n: number, until: number, rate: number) => Array.from({ length: n }, (_, i) => Math.min(i, until) * rate);
  const incident = (running: number[]) =>
    buildIncident([{
      path: "query_range.json",
      text: JSON.stringify({ status: "success", data: { resultType: "matrix", result: [series("sglang:realtime_tokens_total", flat(40, 10, 500), { mode: "decode" }), series("sglang:num_running_reqs", running)] } }),
    }]);
  const hung = await incident(Array(40).fill(4));
  const report = analyzeIncident(hung);
  hung.close();
  const [hang] = violated(report, "process-failure");
  assert.equal(hang?.severity, "high");
  assert.match(hang!.title, /no forward progress from 2026-11-20T03:32:30\.000Z \(sglang:realtime_tokens_total flat on 29 more scrapes over 435 s\) while running requests held 4/);
  const idle = await incident(Array(40).fill(0));
  const quiet = analyzeIncident(idle);
  idle.close();
  assert.deepEqual(violated(quiet, "process-failure"), []);
});

test("the telemetry bundles are among the hand-written ones", () => {
  for (const name of ["metrics-wedge", "traces-wedge", "wedge-logs"]) assert.ok(BUNDLE_NAMES.includes(name), name);
});
