// Wrappers that put several machines' lines in one file, each line's machine
// in its prefix: stern, `kubectl logs --prefix`, journalctl -o json, Loki's
// logcli, Slurm's srun --label, pdsh. Lines are written by hand in the shapes
// these tools print (each test cites the source of its shape); the container
// runtimes' own envelopes are in logDialects.test.ts.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines, us } from "./sglangHarness.js";

test("stern: the pod's and container's names are stripped, the pod names the host; plain words are no pod", async () => {
  // llm-d/llm-d#391: a vLLM NIXL prefill's start-up as `stern` printed it (two replicas).
  const lines = [
    "ms-pd-llm-d-modelservice-prefill-6458459f69-qxv6j vllm (APIServer pid=1) (EngineCore_DP0 pid=72) DEBUG 12-07 22:10:35 [v1/worker/gpu_worker.py:335] Initial free memory: 139.21 GiB; Requested memory: 0.90 (util), 125.83 GiB",
    "ms-pd-llm-d-modelservice-prefill-6458459f69-qxv6j vllm (APIServer pid=1) (EngineCore_DP0 pid=72) INFO 12-07 22:10:35 [v1/worker/gpu_worker.py:348] Available KV cache memory: 53.13 GiB",
    "ms-pd-llm-d-modelservice-prefill-6458459f69-9j89m vllm (APIServer pid=1) (EngineCore_DP0 pid=73) [rank0]:W1207 22:10:35.487000 73 torch/_inductor/codegen/triton_combo_kernel.py:110] [0/0] ComboKernels: 1 large pointwise nodes are separated",
  ];
  const { detectWrapper } = await import("../../ingest/formats/wrappers/index.js");
  assert.equal(detectWrapper(lines)?.name, "stern");
  assert.equal(detectWrapper(["restarted the decode pods at 10:20", "decode-0 prefill-1 were fine"]), null);
  const { events } = parseLines(lines, { wrapper: "stern" });
  assert.deepEqual(events.map((e) => e.host), [
    "ms-pd-llm-d-modelservice-prefill-6458459f69-qxv6j",
    "ms-pd-llm-d-modelservice-prefill-6458459f69-qxv6j",
    "ms-pd-llm-d-modelservice-prefill-6458459f69-9j89m",
  ]);
  // The vLLM lines inside are read in their own dialect (the third, torch's Python logger with a path, is not yet).
  assert.deepEqual(events.slice(0, 2).map((e) => [e.kind, e.attrs?.level]), [[LogKind.message, "debug"], [LogKind.message, "info"]]);
});

test("stern: a StatefulSet's, a LeaderWorkerSet's and a DaemonSet's pods too, with --timestamps in either format", async () => {
  // SGLang's multi-node decode as a LeaderWorkerSet (leader `<lws>-<group>`, workers `<lws>-<group>-<index>`), stern
  // --timestamps (the runtime's RFC3339Nano) and --timestamps=short (stern 1.24: `01-02 15:04:05`, local time).
  const lines = [
    "sglang-decode-0 sglang 2025-11-11T21:44:05.123456789Z [2025-11-11 21:44:05 DP0 TP0] Decode batch, #running-req: 3, #token: 181234, token usage: 0.43, pre-allocated usage: 0.06, #prealloc-req: 3, #transfer-req: 9, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 3712.55, #queue-req: 0",
    "sglang-decode-0-1 sglang 2025-11-11T21:44:06.000000000Z RuntimeError: CUDA error: an illegal memory access was encountered",
  ];
  const { detectWrapper } = await import("../../ingest/formats/wrappers/index.js");
  assert.equal(detectWrapper(lines)?.name, "stern");
  const { events } = parseLines(lines, { wrapper: "stern" });
  assert.deepEqual(events.map((e) => [e.host, e.kind]), [
    ["sglang-decode-0", "batch.decode"],
    ["sglang-decode-0-1", LogKind.exception],
  ]);
  assert.equal(events[1]!.tsUs, us("2025-11-11T21:44:06Z"));
  const short = ["nvidia-device-plugin-daemonset-x2kqp nvidia-device-plugin-ctr 11-11 21:44:07 E1111 21:44:07.412345       1 health.go:178] XidCriticalError: Xid=79 on Device=GPU-5d3f…; marking device as unhealthy."];
  assert.equal(detectWrapper(short)?.name, "stern");
  const s = parseLines(short, { wrapper: "stern", dating: { hasDatedLines: false, anchorUs: us("2025-11-11T00:00:00Z"), anchorOrigin: "test", yearNearUs: us("2025-11-11T00:00:00Z"), yearOrigin: "test" } });
  assert.deepEqual(s.events.map((e) => [e.host, e.attrs?.level]), [["nvidia-device-plugin-daemonset-x2kqp", "error"]]);
});

test("kubectl logs --prefix: `[pod/<pod>/<container>] ` stripped, with or without --timestamps; the pod names each line's host", async () => {
  // `kubectl logs -l app=sglang --prefix --timestamps`: two pods' lines interleaved in one stream (kubectl logs.go addPrefixIfNeeded).
  const lines = [
    "[pod/sglang-decode-0/sglang] 2025-11-11T21:44:05.123456789Z [2025-11-11 21:44:05 DP0 TP0] Decode batch, #running-req: 3, #token: 181234, token usage: 0.43, pre-allocated usage: 0.06, #prealloc-req: 3, #transfer-req: 9, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 3712.55, #queue-req: 0",
    "[pod/sglang-prefill-0/sglang] 2025-11-11T21:44:05.200000000Z [2025-11-11 21:44:05 TP0] Prefill batch, #new-seq: 1, #new-token: 8192, #cached-token: 0, token usage: 0.02, #running-req: 0, #queue-req: 0, #prealloc-req: 0, #inflight-req: 1, input throughput (token/s): 0.00",
    "[pod/sglang-decode-0/sglang] 2025-11-11T21:44:06.000000000Z RuntimeError: CUDA error: an illegal memory access was encountered",
  ];
  const { detectWrapper } = await import("../../ingest/formats/wrappers/index.js");
  assert.equal(detectWrapper(lines)?.name, "kubectl-prefix");
  assert.equal(detectWrapper(lines.map((l) => l.replace(/ 2025-11-11T\S+/, "")))?.name, "kubectl-prefix");
  assert.equal(detectWrapper(["[pod restarted] decode-0 came back", "[pod/ is not a pod"]), null);
  const { events } = parseLines(lines, { wrapper: "kubectl-prefix" });
  assert.deepEqual(events.map((e) => [e.host, e.kind]), [
    ["sglang-decode-0", "batch.decode"],
    ["sglang-prefill-0", "batch.prefill"],
    ["sglang-decode-0", LogKind.exception],
  ]);
  // The bare exception line has no time of its own: the runtime's is taken.
  assert.equal(events[2]!.tsUs, us("2025-11-11T21:44:06Z"));
});

test("journalctl -o json: MESSAGE read as the line, __REALTIME_TIMESTAMP as its time, _HOSTNAME as its host", async () => {
  // systemd logs-show.c output_json: the cursor and timestamps first, then the entry's fields; MESSAGE as bytes where not UTF-8, null where longer than printed without --all.
  const entry = (us: string, message: unknown) =>
    JSON.stringify({ __CURSOR: "s=5b2f;i=1a2b;b=9f;m=1;t=2;x=3", __REALTIME_TIMESTAMP: us, __MONOTONIC_TIMESTAMP: "8123456789", _BOOT_ID: "9f0c", _HOSTNAME: "gpu-node-3", SYSLOG_IDENTIFIER: "python3", _PID: "48211", MESSAGE: message });
  const lines = [
    entry("1762897444500000", "[2025-11-11 21:44:04 DP0 TP0] Decode batch, #running-req: 3, #token: 181234, token usage: 0.43, pre-allocated usage: 0.06, #prealloc-req: 3, #transfer-req: 9, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 3712.55, #queue-req: 0"),
    entry("1762897446000000", [...Buffer.from("RuntimeError: CUDA error: an illegal memory access was encountered \xff", "latin1")]),
    entry("1762897446100000", null),
  ];
  const { detectWrapper } = await import("../../ingest/formats/wrappers/index.js");
  assert.equal(detectWrapper(lines)?.name, "journald-json");
  const { events, issues } = parseLines(lines, { wrapper: "journald-json" });
  assert.deepEqual(events.map((e) => [e.line, e.host, e.kind]), [
    [1, "gpu-node-3", "batch.decode"],
    [2, "gpu-node-3", LogKind.exception],
    [3, undefined, LogKind.unparsed],
  ]);
  assert.equal(events[1]!.tsUs, us("2025-11-11T21:44:06Z"));
  assert.match(issues.map((i) => i.message).join("\n"), /MESSAGE journalctl left out/);
});

test("logcli query: the time and the stream's labels stripped; the pod label names the line's host", async () => {
  // `logcli query '{app="sglang"}' > loki.txt` (loki pkg/logcli/output/default.go): labels sorted and Go-quoted, padded to the widest set.
  const lines = [
    '2025-11-11T21:44:05Z {container="sglang", pod="sglang-decode-0"}  [2025-11-11 21:44:05 DP0 TP0] Decode batch, #running-req: 3, #token: 181234, token usage: 0.43, pre-allocated usage: 0.06, #prealloc-req: 3, #transfer-req: 9, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 3712.55, #queue-req: 0',
    '2025-11-11T21:44:05Z {container="sglang", pod="sglang-prefill-0"} [2025-11-11 21:44:05 TP0] Prefill batch, #new-seq: 1, #new-token: 8192, #cached-token: 0, token usage: 0.02, #running-req: 0, #queue-req: 0, #prealloc-req: 0, #inflight-req: 1, input throughput (token/s): 0.00',
    '2025-11-11T22:44:06+01:00 {container="sglang", pod="sglang-decode-0"}  RuntimeError: CUDA error: an illegal memory access was encountered',
    "2025-11-11T21:44:07Z {}                                              Mooncake transfer engine shut down",
  ];
  const { detectWrapper } = await import("../../ingest/formats/wrappers/index.js");
  assert.equal(detectWrapper(lines)?.name, "logcli");
  const { events } = parseLines(lines, { wrapper: "logcli" });
  assert.deepEqual(events.map((e) => [e.host, e.kind]), [
    ["sglang-decode-0", "batch.decode"],
    ["sglang-prefill-0", "batch.prefill"],
    ["sglang-decode-0", LogKind.exception],
    [undefined, LogKind.unparsed],
  ]);
  assert.equal(events[2]!.tsUs, us("2025-11-11T21:44:06Z"));
});

test("srun --label: the task number stripped, each task its own machine; a heterogeneous job's component kept in the name", async () => {
  // A two-node server started by one `srun -l` (slurm write_labelled_message.c _build_label: "%*d: ", "P%u %*d: ").
  const lines = [
    " 0: [2025-11-11 21:44:05 DP0 TP0] Decode batch, #running-req: 3, #token: 181234, token usage: 0.43, pre-allocated usage: 0.06, #prealloc-req: 3, #transfer-req: 9, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 3712.55, #queue-req: 0",
    "10: [2025-11-11 21:44:05 DP0 TP8] Decode batch, #running-req: 3, #token: 181234, token usage: 0.43, pre-allocated usage: 0.06, #prealloc-req: 3, #transfer-req: 9, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 3712.55, #queue-req: 0",
    "10: [2025-11-11 21:44:07 DP0 TP8] Scheduler hit an exception: Traceback (most recent call last):",
    '10:   File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2874, in run_scheduler_process',
    "10: RuntimeError: CUDA error: an illegal memory access was encountered",
    "P1  2: [2025-11-11 21:44:08 TP0] Prefill batch, #new-seq: 1, #new-token: 8192, #cached-token: 0, token usage: 0.02, #running-req: 0, #queue-req: 0, #prealloc-req: 0, #inflight-req: 1, input throughput (token/s): 0.00",
  ];
  const { detectWrapper } = await import("../../ingest/formats/wrappers/index.js");
  assert.equal(detectWrapper(lines)?.name, "srun-label");
  assert.equal(detectWrapper(["21:44:05 decode started", "ready: 2 workers"]), null);
  const { events } = parseLines(lines, { wrapper: "srun-label" });
  assert.deepEqual(events.map((e) => [e.line, e.host, e.kind]), [
    [1, "task-0", "batch.decode"],
    [2, "task-10", "batch.decode"],
    [3, "task-10", LogKind.exception],
    [6, "P1-task-2", "batch.prefill"],
  ]);
  assert.match(events[2]!.text, /illegal memory access/);
  assert.equal(events[2]!.text.split("\n").length, 3);
});

test("pdsh: the node's name stripped and taken as the line's host; a log whose lines open with an exception's name is no pdsh output", async () => {
  // `pdsh -w node[01-02] 'tail -n 3 /var/log/sglang/decode.log'` (pdsh(1): lines prefixed `hostname: ` unless -N).
  const lines = [
    "node01: [2025-11-11 21:44:05 DP0 TP0] Decode batch, #running-req: 3, #token: 181234, token usage: 0.43, pre-allocated usage: 0.06, #prealloc-req: 3, #transfer-req: 9, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 3712.55, #queue-req: 0",
    "10.0.0.12: [2025-11-11 21:44:05 TP0] Prefill batch, #new-seq: 1, #new-token: 8192, #cached-token: 0, token usage: 0.02, #running-req: 0, #queue-req: 0, #prealloc-req: 0, #inflight-req: 1, input throughput (token/s): 0.00",
    "node01: RuntimeError: CUDA error: an illegal memory access was encountered",
  ];
  const { detectWrapper } = await import("../../ingest/formats/wrappers/index.js");
  assert.equal(detectWrapper(lines)?.name, "pdsh");
  assert.equal(detectWrapper(["RuntimeError: CUDA error: out of memory", "WARNING: the kernel was slow", "ValueError: bad"]), null);
  // A short paste whose every line opens with a qualified exception's, a logger's or a program's name.
  for (const line of [
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 1.02 GiB is free.",
    "zmq.error.ZMQError: Address already in use (addr='tcp://10.0.0.3:30001')",
    "torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) local_rank: 0 (pid: 4211) of binary: /usr/bin/python3",
    "nvidia-smi: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
  ]) {
    assert.equal(detectWrapper([line]), null, line);
  }
  // An Ascend error report, each line opening with CANN's error code (`E`, the module, four digits): no node's name.
  const cannReport = [
    "EI0006: [PID: 2201] 2025-06-01-10:00:00.123.456 Getting socket times out. Reason: 1. The remote does not initiate a connect request. some NPUs in the cluster are abnormal.",
    "EZ9999: Inner Error!",
    "EZ9999: [PID: 2201] 2025-06-01-10:00:00.123.456 The error from device(chipId:0, dieId:0), serial number is 5, there is an exception of aivec error, core id is 12",
  ];
  assert.equal(detectWrapper(cannReport), null);
  assert.equal(detectWrapper(cannReport.slice(0, 1)), null);
  const { events } = parseLines(lines, { wrapper: "pdsh" });
  assert.deepEqual(events.map((e) => [e.host, e.kind]), [
    ["node01", "batch.decode"],
    ["10.0.0.12", "batch.prefill"],
    ["node01", LogKind.exception],
  ]);
});

test("journalctl's default short output and syslog files: the stamp (no year, the reader's local time) takes the year of the file's dated lines; the host and the line are read", async () => {
  // `journalctl -u sglang > sglang.log` (logs-show.c: "%b %d %H:%M:%S", short-precise adding microseconds) and rsyslog's /var/log/syslog (day space-padded).
  const lines = [
    "-- Logs begin at Mon 2025-11-10 08:00:01 UTC, end at Tue 2025-11-11 21:50:00 UTC. --",
    "Nov 11 21:44:05 gpu-node-3 python3[12345]: [2025-11-11 21:44:05 DP0 TP0] Decode batch, #running-req: 3, #token: 181234, token usage: 0.43, pre-allocated usage: 0.06, #prealloc-req: 3, #transfer-req: 9, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 3712.55, #queue-req: 0",
    "Nov 11 21:44:06.123456 gpu-node-3 python3[12345]: RuntimeError: CUDA error: an illegal memory access was encountered",
    "Nov  2 03:04:05 gpu-node-4 python3[999]: [2025-11-02 03:04:05 TP0] Prefill batch, #new-seq: 1, #new-token: 8192, #cached-token: 0, token usage: 0.02, #running-req: 0, #queue-req: 0, #prealloc-req: 0, #inflight-req: 1, input throughput (token/s): 0.00",
  ];
  const { detectWrapper } = await import("../../ingest/formats/wrappers/index.js");
  assert.equal(detectWrapper(lines)?.name, "journald");
  const { events, issues } = parseLines(lines, { wrapper: "journald" });
  assert.deepEqual(events.map((e) => [e.line, e.host, e.kind]), [
    [1, undefined, LogKind.unparsed],
    [2, "gpu-node-3", "batch.decode"],
    [3, "gpu-node-3", LogKind.exception],
    [4, "gpu-node-4", "batch.prefill"],
  ]);
  assert.deepEqual(issues, []);
  assert.equal(events[1]!.tsUs, us("2025-11-11T21:44:05Z"));
  // A line with no time of its own takes the stamp's, in the year of the dated line before it (read in the zone given, UTC here).
  assert.deepEqual([events[2]!.tsUs, events[2]!.tsInferred], [us("2025-11-11T21:44:06.123456Z"), undefined]);
});

test("a kern.log in syslog's traditional format alone: its stamps take the year the dating hints give, nearest to it across New Year", () => {
  // rsyslog's RSYSLOG_TraditionalFileFormat, as Ubuntu writes /var/log/kern.log: `%b %e %H:%M:%S host kernel: [secs] message`.
  const lines = [
    "Dec 31 23:59:58 gpu-node-3 kernel: [ 1843.309055] Out of memory: Killed process 41234 (python3) total-vm:812345612kB, anon-rss:1951234560kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:3893212kB oom_score_adj:0",
    "Jan  1 00:00:03 gpu-node-3 kernel: [ 1848.000001] NVRM: Xid (PCI:0000:18:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
  ];
  const near = us("2025-12-31T12:00:00Z");
  const dating = { hasDatedLines: false, anchorUs: near, anchorOrigin: "before host gpu-node-3's first dated line", yearNearUs: near, yearOrigin: "host gpu-node-3's dated lines in other files" };
  const { events } = parseLines(lines, { wrapper: "journald", dating });
  assert.deepEqual(events.map((e) => [e.host, e.tsUs, e.timeless]), [
    ["gpu-node-3", us("2025-12-31T23:59:58Z"), undefined],
    ["gpu-node-3", us("2026-01-01T00:00:03Z"), undefined],
  ]);
});

test("a wrapped log quoted with Markdown's `> ` in a reply: its wrapper is found under the quote and each line unwrapped", async () => {
  const { wrapperOfHead } = await import("../../ingest/formats/log/head.js");
  // A CRI log (`kubectl logs` of a node's /var/log/pods file: time, stream, P/F, line) and a `grep -n` of docker's json-file, each quoted.
  const cri = [
    '> 2026-06-17T19:51:53.290683293+02:00 stderr F Traceback (most recent call last):',
    '> 2026-06-17T19:51:53.290684006+02:00 stderr F   File "/sgl-workspace/sglang/python/sglang/srt/layers/attention/dsa_backend.py", line 2178, in _forward_trtllm',
    "> 2026-06-17T19:51:53.290684946+02:00 stderr F     batch_size = page_table_1.shape[0]",
    "> 2026-06-17T19:51:53.290692479+02:00 stderr F AttributeError: 'NoneType' object has no attribute 'shape'",
    "> 2026-06-17T19:51:53.291020372+02:00 stderr F [2026-06-17 17:51:53] Received sigquit from a child process. It usually means the child failed.",
  ];
  assert.equal(wrapperOfHead(cri.join("\n"))?.name, "cri");
  const { events, issues } = parseLines(cri, { wrapper: "cri" });
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.line, e.kind, e.attrs?.excType]),
    [
      [1, LogKind.exception, "AttributeError"],
      [5, events[1]!.kind, undefined],
    ],
  );
  assert.equal(events[0]!.tsUs, us("2026-06-17T17:51:53.290683Z"));
  const json = [
    '> 0b1c-json.log:190174:{"log":"ERROR 08-29 05:22:59 [core.py:702] EngineCore encountered a fatal error.\\r\\n","stream":"stdout","time":"2025-08-29T05:22:59.123456789Z"}',
    '> 0b1c-json.log:190175:{"log":"ERROR 08-29 05:22:59 [core.py:702] Traceback (most recent call last):\\r\\n","stream":"stdout","time":"2025-08-29T05:22:59.123556789Z"}',
  ];
  assert.equal(wrapperOfHead(json.join("\n"))?.name, "docker-json");
  const quotedJson = parseLines(json, { wrapper: "docker-json" });
  assert.deepEqual(quotedJson.issues, []);
  // vLLM's traceback re-logged under the same prefix continues the error line's record.
  assert.deepEqual(quotedJson.events.map((e) => [e.line, e.attrs?.level, e.attrs?.source]), [[1, "error", "core.py:702"]]);
});
