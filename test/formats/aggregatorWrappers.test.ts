// The envelopes logs come back in from where operators collect them: CloudWatch's
// `aws logs tail`, a log shipper's JSON records (Fluent Bit, Fluentd, Vector,
// Filebeat) and moreutils' `ts` in front of a server's output. Lines are
// written by hand in the shapes those tools print (each test cites the source
// of its shape); each file must read as the bare log reads, with its host.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { detectWrapper } from "../../ingest/formats/wrappers/index.js";
import { parseLines, us } from "./sglangHarness.js";

const DECODE_BATCH =
  "[2026-12-07 16:10:06 TP0] Decode batch. #running-req: 44, #token: 95012, token usage: 0.66, gen throughput (token/s): 1812.04, #queue-req: 2";
const SCHEDULER_EXCEPTION = "[2026-12-07 16:10:11 TP0] Scheduler hit an exception: Traceback (most recent call last):";
const FRAME = '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2891, in run_scheduler_process';
const OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 79.10 GiB of which 312.00 MiB is free.";

test("aws logs tail (detailed): the time, the log stream and the message; the stream, or the pod its name holds, is the host", () => {
  // aws-cli customizations/logs/tail.py DetailedLogEventsFormatter: `%s %s %s` of isoformat() (UTC, `+00:00`,
  // microseconds unless zero), the stream's name and the right-stripped message. ECS streams are
  // `<prefix>/<container>/<task>`; Container Insights' Fluent Bit names a stream for the container's log file.
  const pod = "from-fluent-bit-kube.var.log.containers.sglang-prefill-0_default_sglang-4f1c2a0d9e8b7c6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a.log";
  const lines = [
    `2026-12-07T16:10:06.137000+00:00 sglang/decode/3f2a9c1e0b7d4e21 ${DECODE_BATCH}`,
    `2026-12-07T16:10:11+00:00 sglang/decode/3f2a9c1e0b7d4e21 ${SCHEDULER_EXCEPTION}`,
    `2026-12-07T16:10:11.002000+00:00 sglang/decode/3f2a9c1e0b7d4e21 ${FRAME}`,
    `2026-12-07T16:10:11.003000+00:00 sglang/decode/3f2a9c1e0b7d4e21 ${OOM}`,
    `2026-12-07T16:10:12.500000+00:00 ${pod} [2026-12-07 16:10:12 TP0] Prefill batch. #new-seq: 1, #new-token: 8192, #cached-token: 0, token usage: 0.02, #running-req: 0, #queue-req: 0`,
  ];
  assert.equal(detectWrapper(lines)?.name, "aws-logs-tail");
  const { events, issues } = parseLines(lines, { wrapper: "aws-logs-tail" });
  assert.deepEqual(issues, []);
  assert.deepEqual(events.map((e) => [e.line, e.host, e.kind, e.tp]), [
    [1, "sglang/decode/3f2a9c1e0b7d4e21", "batch.decode", 0],
    [2, "sglang/decode/3f2a9c1e0b7d4e21", LogKind.exception, 0],
    [5, "sglang-prefill-0", "batch.prefill", 0],
  ]);
  // The traceback's lines, each its own event in CloudWatch, are one record with the exception it ends in.
  assert.deepEqual([events[1]!.attrs?.thread, events[1]!.attrs?.excType], ["scheduler", "torch.OutOfMemoryError"]);
  // A logger's own ISO-time line with a level after it is no stream: not this wrapper's.
  assert.notEqual(detectWrapper(["2026-12-07T16:10:06.137000+00:00 INFO server started", "2026-12-07T16:10:07+00:00 ERROR worker died"])?.name, "aws-logs-tail");
  // kubectl's `Z` time is kubectl's.
  assert.equal(detectWrapper([`2026-12-07T16:10:06.137000000Z ${DECODE_BATCH}`])?.name, "kubectl");
});

test("aws logs tail: the lines of a multi-line event carry no prefix and stay with its stream", () => {
  // An agent told to group a traceback (multi_line_start_pattern, awslogs-multiline-pattern) sends it as one event.
  const lines = [
    `2026-12-07T16:10:06.137000+00:00 ecs/sglang-decode/9d1e77c0aa2b4f0e ${DECODE_BATCH}`,
    `2026-12-07T16:10:07.000100+00:00 ecs/sglang-decode/9d1e77c0aa2b4f0e ${DECODE_BATCH.replace("16:10:06", "16:10:07")}`,
    `2026-12-07T16:10:08.000100+00:00 ecs/sglang-decode/9d1e77c0aa2b4f0e ${DECODE_BATCH.replace("16:10:06", "16:10:08")}`,
    `2026-12-07T16:10:09.000100+00:00 ecs/sglang-decode/9d1e77c0aa2b4f0e ${DECODE_BATCH.replace("16:10:06", "16:10:09")}`,
    `2026-12-07T16:10:11.000100+00:00 ecs/sglang-decode/9d1e77c0aa2b4f0e ${SCHEDULER_EXCEPTION}`,
    FRAME,
    OOM,
  ];
  assert.equal(detectWrapper(lines)?.name, "aws-logs-tail");
  const { events, issues } = parseLines(lines, { wrapper: "aws-logs-tail" });
  assert.deepEqual(issues, []);
  const exception = events.find((e) => e.kind === LogKind.exception);
  assert.equal(exception?.host, "ecs/sglang-decode/9d1e77c0aa2b4f0e");
  assert.equal(exception?.attrs?.excType, "torch.OutOfMemoryError");
  // SGLang's prefix states whole seconds; the stamp inside that second gives the microseconds.
  assert.equal(exception?.tsUs, us("2026-12-07T16:10:11.000100Z"));
});

test("a log shipper's JSON records: the container's line, its time and its pod; a part the runtime split is joined", () => {
  // Fluent Bit's CRI parser and kubernetes filter (conf/parsers.conf `cri`: time, stream, _p, log; the filter's
  // kubernetes.pod_name and .host), Vector's kubernetes_logs (message, stream, timestamp, kubernetes.pod_name,
  // source_type) and Filebeat's container input (message, stream, @timestamp, kubernetes.pod.name).
  const k8s = { pod_name: "sglang-decode-0", namespace_name: "default", container_name: "sglang", host: "gpu-node-3" };
  const lines = [
    JSON.stringify({ date: 1796659806.137, time: "2026-12-07T16:10:06.137000Z", stream: "stderr", _p: "F", log: DECODE_BATCH, kubernetes: k8s }),
    JSON.stringify({ date: 1796659811.001, time: "2026-12-07T16:10:11.001000Z", stream: "stderr", _p: "P", log: SCHEDULER_EXCEPTION.substring(0, 40), kubernetes: k8s }),
    JSON.stringify({ date: 1796659811.001, time: "2026-12-07T16:10:11.001000Z", stream: "stderr", _p: "F", log: SCHEDULER_EXCEPTION.substring(40), kubernetes: k8s }),
    JSON.stringify({ file: "/var/log/pods/default_sglang-decode-0_1/sglang/0.log", kubernetes: { pod_name: "sglang-decode-0", pod_node_name: "gpu-node-3" }, message: FRAME, source_type: "kubernetes_logs", stream: "stderr", timestamp: "2026-12-07T16:10:11.002Z" }),
    JSON.stringify({ "@timestamp": "2026-12-07T16:10:11.003Z", message: OOM, stream: "stderr", kubernetes: { pod: { name: "sglang-decode-0" }, node: { name: "gpu-node-3" } } }),
  ];
  assert.equal(detectWrapper(lines)?.name, "shipper-json");
  const { events, issues } = parseLines(lines, { wrapper: "shipper-json" });
  assert.deepEqual(issues, []);
  assert.deepEqual(events.map((e) => [e.line, e.host, e.kind, e.tp]), [
    [1, "sglang-decode-0", "batch.decode", 0],
    [2, "sglang-decode-0", LogKind.exception, 0],
  ]);
  assert.deepEqual([events[1]!.attrs?.thread, events[1]!.attrs?.excType, events[1]!.attrs?.failureClass], ["scheduler", "torch.OutOfMemoryError", "cuda-oom"]);
});

test("a shipper's record holding the runtime's whole CRI line, and the records that are not a shipper's", () => {
  // Container Insights' Fluent Bit on containerd without the CRI parser ships `<time> stderr F <line>` in `log`.
  const k8s = { pod_name: "sglang-prefill-1", host: "ip-10-3-58-21.ec2.internal" };
  const lines = [
    JSON.stringify({ log: `2026-12-07T16:10:11.001000000Z stderr F ${SCHEDULER_EXCEPTION}`, stream: "stderr", kubernetes: k8s }),
    JSON.stringify({ log: `2026-12-07T16:10:11.003000000Z stderr F ${OOM}`, stream: "stderr", kubernetes: k8s }),
  ];
  assert.equal(detectWrapper(lines)?.name, "shipper-json");
  const { events } = parseLines(lines, { wrapper: "shipper-json" });
  // The runtime's stamp inside the record gives the microseconds within the prefix's second.
  assert.deepEqual(events.map((e) => [e.host, e.kind, e.tsUs]), [["sglang-prefill-1", LogKind.exception, us("2026-12-07T16:10:11.001Z")]]);
  // Docker's own json-file records have no metadata: they stay Docker's, whose `log` without a newline is a part.
  assert.equal(detectWrapper([JSON.stringify({ log: `${DECODE_BATCH}\n`, stream: "stderr", time: "2026-12-07T16:10:06.137Z" })])?.name, "docker-json");
  // An application's own JSON line (a level and a message) is the structured dialect's, not an envelope.
  assert.equal(detectWrapper([JSON.stringify({ time: "2026-12-07T16:10:06Z", level: "error", message: "worker died", stream: "stderr" })]), null);
});

test("moreutils ts: its stamp (no year, local time) is stripped and dates a line with no time of its own", () => {
  // `python -m sglang.launch_server … 2>&1 | ts | tee server.log` (moreutils ts: "%b %d %H:%M:%S", `%.S` with microseconds).
  const lines = [
    `Dec 07 16:10:06 ${DECODE_BATCH}`,
    `Dec 07 16:10:11 ${SCHEDULER_EXCEPTION}`,
    `Dec 07 16:10:11 ${FRAME}`,
    `Dec 07 16:10:11 ${OOM}`,
    "Dec 07 16:10:12.004512 Fatal Python error: Aborted",
  ];
  assert.equal(detectWrapper(lines)?.name, "moreutils-ts");
  const { events, issues } = parseLines(lines, { wrapper: "moreutils-ts" });
  assert.deepEqual(issues, []);
  assert.deepEqual(events.map((e) => [e.line, e.kind, e.tp]), [
    [1, "batch.decode", 0],
    [2, LogKind.exception, 0],
    [5, events[2]!.kind, undefined],
  ]);
  assert.equal(events[1]!.attrs?.excType, "torch.OutOfMemoryError");
  // The line without a time of its own takes the stamp, in the year of the dated lines before it.
  assert.equal(events[2]!.tsUs, us("2026-12-07T16:10:12.004512Z"));
  // journald's lines name a host and a program after the same stamp: they stay journald's.
  assert.equal(detectWrapper(["Dec 07 16:10:06 gpu-node-3 python3[48211]: " + DECODE_BATCH])?.name, "journald");
});

test("a wrapper inside a wrapper: Container Insights' records in `aws logs tail`, a compose capture in `ts`", () => {
  // EKS Container Insights: Fluent Bit's record, with the runtime's CRI line in `log` where no CRI parser is set,
  // is the CloudWatch event's message (the record as a pasted CloudWatch event shows it).
  const record = (time: string, line: string) =>
    JSON.stringify({ log: `${time} stderr F ${line}`, stream: "stderr", kubernetes: { pod_name: "sglang-decode-1", namespace_name: "llm", host: "ip-10-3-58-21.ec2.internal" } });
  const stream = "from-fluent-bit-kube.var.log.containers.sglang-decode-1_llm_sglang-4f1c2a0d9e8b7c6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a.log";
  const lines = [
    `2026-12-07T16:10:06.140000+00:00 ${stream} ${record("2026-12-07T16:10:06.137000000Z", DECODE_BATCH)}`,
    `2026-12-07T16:10:11.004000+00:00 ${stream} ${record("2026-12-07T16:10:11.001000000Z", SCHEDULER_EXCEPTION)}`,
    `2026-12-07T16:10:11.004000+00:00 ${stream} ${record("2026-12-07T16:10:11.002000000Z", FRAME)}`,
    `2026-12-07T16:10:11.004000+00:00 ${stream} ${record("2026-12-07T16:10:11.003000000Z", OOM)}`,
  ];
  const wrapper = detectWrapper(lines);
  assert.equal(wrapper?.name, "aws-logs-tail>shipper-json");
  const { events, issues } = parseLines(lines, { wrapper: wrapper!.name });
  assert.deepEqual(issues, []);
  // The runtime's stamp (inside the record) gives the microseconds, not CloudWatch's later one.
  assert.deepEqual(events.map((e) => [e.host, e.kind, e.tp, e.tsUs]), [
    ["sglang-decode-1", "batch.decode", 0, us("2026-12-07T16:10:06.137Z")],
    ["sglang-decode-1", LogKind.exception, 0, us("2026-12-07T16:10:11.001Z")],
  ]);
  assert.equal(events[1]!.attrs?.excType, "torch.OutOfMemoryError");

  // `docker compose logs -f | ts`: ts's stamp, then compose's service and bar.
  const composed = [`Dec 07 16:10:06 sglang-decode-1  | ${DECODE_BATCH}`, `Dec 07 16:10:11 sglang-prefill-1  | ${SCHEDULER_EXCEPTION}`, `Dec 07 16:10:11 sglang-prefill-1  | ${OOM}`];
  assert.equal(detectWrapper(composed)?.name, "moreutils-ts>compose");
  const c = parseLines(composed, { wrapper: "moreutils-ts>compose" });
  assert.deepEqual(c.events.map((e) => [e.host, e.kind]), [["sglang-decode-1", "batch.decode"], ["sglang-prefill-1", LogKind.exception]]);
});
