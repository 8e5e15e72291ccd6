// Whose a file is, read through the real ingest from bundles in the layouts
// operators collect: one folder per machine with the same file names in
// each, a node's logs beside its probe records, files saved at a bundle's top.

import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { ingest } from "../../ingest/pipeline.js";
import type { SourceSummary } from "../../ingest/sourceSummaries.js";
import { listIngestedSources } from "../../store/read/sources.js";
import { sosReportHost } from "../../ingest/inputs/sosReport.js";
import { eventRows, tarOf, tempDir, withDb, writeTree } from "./bundle.js";

const ROOM = "8972542885242963296";

function decodeLog(clock: string, transferReq: number): string {
  return [
    `[2026-06-11 ${clock}:00 DP0 TP0] Decode batch, #running-req: 44, #token: 303600, token usage: 0.63, pre-allocated usage: 0.02, #prealloc-req: 0, #transfer-req: ${transferReq}, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 2125.20, #queue-req: 0`,
    `[2026-06-11 ${clock}:10 DP0 TP0] Decode batch, #running-req: 44, #token: 303600, token usage: 0.63, pre-allocated usage: 0.02, #prealloc-req: 0, #transfer-req: ${transferReq}, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 2125.20, #queue-req: 0`,
    "",
  ].join("\n");
}

function byPath(sources: readonly SourceSummary[], suffix: string): SourceSummary {
  const s = sources.find((x) => x.path.endsWith(suffix));
  assert.ok(s, `no source ${suffix} among ${sources.map((x) => x.path).join(", ")}`);
  return s;
}

test("two decode machines, each in a folder named for it, with identically named files: two hosts, two clocks", async () => {
  const dir = tempDir("two-nodes");
  writeTree(join(dir, "incident"), {
    "node-a/sglang-decode.log": decodeLog("14:05", 58),
    "node-b/sglang-decode.log": decodeLog("14:05", 12),
  });
  const db = join(dir, "i.db");
  const summary = await ingest({ db, paths: [join(dir, "incident")] });
  assert.deepEqual(
    ["node-a/sglang-decode.log", "node-b/sglang-decode.log"].map((p) => [byPath(summary.sources, p).host, byPath(summary.sources, p).role]),
    [["node-a", "decode"], ["node-b", "decode"]],
  );
  assert.deepEqual(Object.keys(summary.clockOffsetsUs).sort(), ["node-a", "node-b"]);
  withDb(db, (h) => {
    const frozen = eventRows(h).filter((r) => r.text.includes("#transfer-req: 58"));
    assert.deepEqual([...new Set(frozen.map((r) => r.host))], ["node-a"], "node-b's queue is its own");
  });
});

test("a node's folder with its logs, probe records and Flight Recorder dump: one host, the one its probe records name", async () => {
  const dir = tempDir("node-folder");
  const probe = [
    `{"ts": 1781186587.100000, "host": "sglang-prefill-0", "role": "prefill", "tp": 0, "ev": "kv.post", "room": ${ROOM}, "chunk": 0, "last": true, "pages": [[1024, 1088]]}`,
    `{"ts": 1781186587.104000, "host": "sglang-prefill-0", "role": "prefill", "tp": 0, "ev": "kv.done", "room": ${ROOM}, "chunk": 0}`,
    "",
  ].join("\n");
  const frDump = JSON.stringify({
    version: "2.4",
    pg_config: { "0": { name: "0", desc: "default_pg", ranks: "[0, 1]" } },
    entries: [
      {
        record_id: 0, pg_id: 0, process_group: ["0", "default_pg"], collective_seq_id: 9141, p2p_seq_id: 0, op_id: 9141,
        profiling_name: "nccl:all_reduce", time_created_ns: 1781186587100000000, time_discovered_started_ns: 1781186587100100000,
        time_discovered_completed_ns: 1781186587100300000, duration_ms: 0.2, state: "completed", retired: true, timeout_ms: 600000,
        input_sizes: [[4096]], input_dtypes: ["BFloat16"], output_sizes: [[4096]], output_dtypes: ["BFloat16"], is_p2p: false,
        frames: [{ name: "all_reduce", filename: "sglang/srt/distributed/parallel_state.py", line: 512 }],
      },
    ],
  });
  writeTree(join(dir, "bundle"), {
    "prefill-node-3/sglang-prefill.log": `[2026-06-11 14:03:07 DP0 TP0] Prefill batch, #new-seq: 1, #new-token: 8192, #cached-token: 0, token usage: 0.04, #running-req: 1, #queue-req: 0\n`,
    "prefill-node-3/probe-tp0.jsonl": probe,
    "prefill-node-3/nccl_trace_rank_0.json": frDump,
    "decode-node-1/sglang-decode.log": decodeLog("14:03", 1),
  });
  const db = join(dir, "i.db");
  const summary = await ingest({ db, paths: [join(dir, "bundle")] });
  const shape = (p: string) => [byPath(summary.sources, p).format, byPath(summary.sources, p).host, byPath(summary.sources, p).ranks];
  assert.deepEqual(shape("prefill-node-3/sglang-prefill.log"), ["sglang-log", "sglang-prefill-0", ["prefill/dp0/tp0"]]);
  assert.deepEqual(shape("prefill-node-3/probe-tp0.jsonl"), ["probe-jsonl", "sglang-prefill-0", ["prefill/tp0"]]);
  assert.deepEqual(shape("prefill-node-3/nccl_trace_rank_0.json"), ["flight-recorder", "sglang-prefill-0", ["prefill/tp0"]]);
  assert.deepEqual(Object.keys(summary.clockOffsetsUs).sort(), ["decode-node-1", "sglang-prefill-0"], "one clock per machine");
  withDb(db, (h) => assert.deepEqual([...new Set(listIngestedSources(h).map((s) => s.host))].sort(), ["decode-node-1", "sglang-prefill-0"]));
});

test("logs saved at a bundle's top under their pods' names, and docker logs with no host: each file names its host", async () => {
  const dir = tempDir("top-files");
  writeTree(join(dir, "bundle"), {
    "sglang-decode-0.log": decodeLog("14:05", 3),
    "sglang-decode-1.log": decodeLog("14:05", 4),
    "p0/prefill-tp0.log": `[2026-06-11 14:05:07 DP0 TP0] Prefill batch, #new-seq: 1, #new-token: 8192, #cached-token: 0, token usage: 0.04, #running-req: 1, #queue-req: 0\n`,
  });
  const summary = await ingest({ db: join(dir, "i.db"), paths: [join(dir, "bundle")] });
  assert.deepEqual(
    ["sglang-decode-0.log", "sglang-decode-1.log", "p0/prefill-tp0.log"].map((p) => byPath(summary.sources, p).host),
    ["sglang-decode-0", "sglang-decode-1", "p0"],
  );
});

test("one stream of several machines' lines (kubectl logs -l … --prefix, docker compose logs): each line keeps its machine, and its role where it names none", async () => {
  const dir = tempDir("several-hosts");
  const decode = (s: number) => `[2026-06-11 10:20:0${s} DP0 TP0] Decode batch, #running-req: 44, #token: 303600, token usage: 0.63, pre-allocated usage: 0.02, #prealloc-req: 0, #transfer-req: 2, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 2125.20, #queue-req: 0`;
  const prefill = (s: number) => `[2026-06-11 10:20:0${s} TP0] Prefill batch, #new-seq: 1, #new-token: 8192, #cached-token: 0, token usage: 0.02, #running-req: 0, #queue-req: 0, #prealloc-req: 0, #inflight-req: 1, input throughput (token/s): 0.00`;
  const death = ["Traceback (most recent call last):", '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2874, in run_scheduler_process', "RuntimeError: CUDA error: an illegal memory access was encountered"];
  const at = (s: number) => `2026-06-11T10:20:0${s}.500000000Z`;
  writeTree(dir, {
    "in/kubectl-all.log": [
      `[pod/sglang-decode-0/sglang] ${at(1)} ${decode(1)}`,
      `[pod/sglang-prefill-0/sglang] ${at(1)} ${prefill(1)}`,
      `[pod/sglang-decode-0/sglang] ${at(2)} ${decode(2)}`,
      ...death.map((l) => `[pod/sglang-prefill-0/sglang] ${at(3)} ${l}`),
      "",
    ].join("\n"),
    "compose/compose.log": [`decode-1   | ${decode(1)}`, `prefill-1  | ${prefill(1)}`, ...death.map((l) => `prefill-1  | ${l}`), ""].join("\n"),
  });
  const db = join(dir, "i.db");
  await ingest({ db, paths: [join(dir, "in"), join(dir, "compose")] });
  withDb(db, (h) => {
    const rows = eventRows(h);
    const of = (file: string) => rows.filter((r) => r.source.endsWith(file)).map((r) => [r.host, r.role, r.kind]);
    assert.deepEqual(of("kubectl-all.log"), [
      ["sglang-decode-0", "decode", "batch.decode"],
      ["sglang-prefill-0", "prefill", "batch.prefill"],
      ["sglang-decode-0", "decode", "batch.decode"],
      ["sglang-prefill-0", "prefill", "log.exception"],
    ]);
    assert.deepEqual(of("compose.log"), [
      ["decode-1", "decode", "batch.decode"],
      ["prefill-1", "prefill", "batch.prefill"],
      ["prefill-1", "prefill", "log.exception"],
    ]);
  });
});

test("a file takes the side its server_args line names, over what its path says (the content first, as of every record's role); each machine of one stream its own", async () => {
  const dir = tempDir("stated-role");
  const args = (mode: string) =>
    `[2026-06-11 10:19:58] server_args=ServerArgs(model_path='deepseek-ai/DeepSeek-V3', tp_size=8, dp_size=1, disaggregation_mode='${mode}', disaggregation_transfer_backend='mooncake', disaggregation_bootstrap_port=8998)`;
  const death = ["[2026-06-11 10:20:03 TP0] Scheduler hit an exception: Traceback (most recent call last):", '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2874, in run_scheduler_process', "RuntimeError: CUDA error: an illegal memory access was encountered"];
  const plain = "[2026-06-11 10:20:01 TP0] Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail mem=40.12 GB, mem usage=35.00 GB.";
  writeTree(dir, {
    "node-7/server.log": [args("decode"), plain, ...death, ""].join("\n"),
    "node-8/prefill.log": [args("decode"), plain, ""].join("\n"),
    "node-9/server.log": [args("null"), plain, ""].join("\n"),
    "compose/compose.log": [`sglang-a  | ${args("prefill")}`, `sglang-b  | ${args("decode")}`, `sglang-a  | ${plain}`, `sglang-b  | ${plain}`, ""].join("\n"),
  });
  const db = join(dir, "i.db");
  const summary = await ingest({ db, paths: [dir] });
  assert.deepEqual(
    ["node-7/server.log", "node-8/prefill.log", "node-9/server.log"].map((p) => [byPath(summary.sources, p).role, byPath(summary.sources, p).ranks]),
    [["decode", ["decode/tp0"]], ["decode", ["decode/tp0"]], [null, ["unknown/tp0"]]],
  );
  withDb(db, (h) => {
    const rows = eventRows(h);
    assert.deepEqual([...new Set(rows.filter((r) => r.source.endsWith("node-7/server.log")).map((r) => r.role))], ["decode"]);
    assert.deepEqual(
      rows.filter((r) => r.source.endsWith("compose.log")).map((r) => [r.host, r.role]),
      [["sglang-a", "prefill"], ["sglang-b", "decode"], ["sglang-a", "prefill"], ["sglang-b", "decode"]],
    );
  });
});

/** What `sos report` collects of a serving node, in its own layout: the kernel's ring buffer under sos_commands, syslog under var/log. */
function sosReportFiles(top: string): Record<string, string> {
  return {
    [`${top}/sos_commands/kernel/dmesg_-T`]:
      "[Thu Jun 11 14:07:11 2026] Out of memory: Killed process 41234 (python3) total-vm:812345612kB, anon-rss:1951234560kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:3893212kB oom_score_adj:0\n",
    [`${top}/var/log/messages`]: [
      "Jun 11 14:06:58 gpu-node-3 python3[41234]: [2026-06-11 14:06:58 DP0 TP0] Prefill batch, #new-seq: 3, #new-token: 12288, #cached-token: 1536, token usage: 0.07, #running-req: 0, #queue-req: 4",
      "Jun 11 14:07:12 gpu-node-3 systemd[1]: sglang-prefill.service: Failed with result 'oom-kill'.",
      "",
    ].join("\n"),
  };
}

test("sos report folder names: friendly and legacy, the short hostname out of them; other folders name none", () => {
  assert.equal(sosReportHost("sosreport-gpu-node-3-2026-06-11-xkqvbzt"), "gpu-node-3");
  assert.equal(sosReportHost("sosreport-gpu-node-3.01234567-20260611140712"), "gpu-node-3");
  assert.equal(sosReportHost("sosreport-gpu-node-3-20260611140712"), "gpu-node-3");
  // A label or case id reads as part of the name: the report's own files correct it (next test).
  assert.equal(sosReportHost("sosreport-gpu-node-3-oom-2026-06-11-xkqvbzt"), "gpu-node-3-oom");
  assert.equal(sosReportHost("sosreport"), undefined);
  assert.equal(sosReportHost("sosreports-2026-06-11"), undefined);
});

test("a sos report is one machine's, however deep its files lie: as a folder, as a .tar.xz, and named with a label its syslog corrects", async () => {
  const dir = tempDir("sosreport");
  const top = "sosreport-gpu-node-3-2026-06-11-xkqvbzt";
  writeTree(dir, sosReportFiles(top));
  const folder = await ingest({ db: join(dir, "folder.db"), paths: [join(dir, top)] });
  assert.deepEqual(folder.sources.map((s) => [s.path.slice(s.path.indexOf(top)), s.host]).sort(), [
    [`${top}/sos_commands/kernel/dmesg_-T`, "gpu-node-3"],
    [`${top}/var/log/messages`, "gpu-node-3"],
  ]);

  const labelled = "sosreport-gpu-node-3-oom-2026-06-11-abcdefg";
  writeTree(dir, { "packed/report.tar": await tarOf(sosReportFiles(labelled)) });
  const packed = await ingest({ db: join(dir, "packed.db"), paths: [join(dir, "packed/report.tar")] });
  assert.deepEqual(packed.sources.map((s) => s.host), ["gpu-node-3", "gpu-node-3"], "the syslog's host, shared with the kernel's file");
});
