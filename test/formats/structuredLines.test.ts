// Structured log lines (ingest/formats/log/dialects/structured.ts): one JSON object per
// record. Dynamo's lines are the ones its logging guide prints
// (ai-dynamo/dynamo/docs/observability/logging.md); the others are written by
// hand in the shape each logger's encoder prints (zap's production encoder,
// tracing-subscriber's JSON format, pino), with messages from the working half
// of test/corpus.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines, parseOne, us } from "./sglangHarness.js";

const DYNAMO_INFO =
  '{"time":"2025-09-02T15:53:31.943377Z","level":"INFO","target":"log","message":"VllmWorker for Qwen/Qwen3-0.6B has been initialized","log.file":"/opt/dynamo/venv/lib/python3.12/site-packages/dynamo/vllm/main.py","log.line":191,"log.target":"main.init"}';
const DYNAMO_ERROR =
  '{"time":"2025-09-02T15:54:02.101223Z","level":"ERROR","file":"/opt/dynamo/lib/runtime/src/pipeline/network/tcp/client.rs","line":214,"target":"dynamo_runtime::pipeline::network::tcp::client","message":"failed to join writer task: I/O error: Broken pipe (os error 32)"}';

test("Dynamo's JSONL: the record's time, level and target are read, its message is the text", () => {
  const { events, issues } = parseLines([DYNAMO_INFO, DYNAMO_ERROR]);
  assert.deepEqual(issues, []);
  assert.deepEqual(events.map((e) => [e.kind, e.tsUs, e.attrs?.level, e.attrs?.source]), [
    [LogKind.message, us("2025-09-02T15:53:31.943377Z"), "info", "main.init"],
    [LogKind.error, us("2025-09-02T15:54:02.101223Z"), "error", "dynamo_runtime::pipeline::network::tcp::client"],
  ]);
  assert.equal(events[1]!.attrs?.error, "failed to join writer task: I/O error: Broken pipe (os error 32)");
  // The event keeps the line as the file holds it.
  assert.equal(events[1]!.text, DYNAMO_ERROR);
});

test("an SGLang message inside a structured record is read by SGLang's template, as the same text printed bare", () => {
  const message =
    "Prefill bootstrap failed for request rank=2 req.rid='9c8925b205154f369628a4ae6e504216' req.bootstrap_room=806626514800541158 with exception KVTransferError(bootstrap_room=806626514800541158): Aborted by AbortReq.";
  const bare = parseOne(message);
  const structured = parseOne(JSON.stringify({ time: "2025-11-11T21:44:24.118000Z", level: "ERROR", target: "log", message, "log.target": "prefill.process_disagg_prefill_inflight_queue" }));
  assert.notEqual(bare.kind, LogKind.unparsed);
  assert.equal(structured.kind, bare.kind);
  assert.equal(structured.room, bare.room);
  assert.equal(structured.tsUs, us("2025-11-11T21:44:24.118Z"));
});

test("zap's production encoder: epoch seconds and lower-case levels; its logger is the source", () => {
  const ev = parseOne(
    '{"level":"error","ts":1765112435.487,"logger":"proxy server on port 8000","caller":"proxy/connector_nixlv2.go:98","msg":"failed to connect to vLLM decoder","error":"dial tcp 10.0.0.5:8200: connect: connection refused"}',
  );
  assert.equal(ev.kind, LogKind.error);
  assert.equal(ev.tsUs, 1765112435487000);
  assert.equal(ev.attrs?.source, "proxy server on port 8000");
});

test("tracing-subscriber's JSON (the message under fields) and pino's numeric levels and epoch milliseconds", () => {
  const { events } = parseLines([
    '{"timestamp":"2026-01-05T10:00:00.123456Z","level":"WARN","fields":{"message":"retrying the KV event stream"},"target":"dynamo_llm::kv_router"}',
    '{"level":50,"time":1765112435487,"pid":41,"hostname":"gpu-node-3","msg":"worker exited with code 137"}',
    '{"level":30,"time":1765112436001,"pid":41,"hostname":"gpu-node-3","msg":"worker restarted"}',
  ]);
  assert.deepEqual(events.map((e) => [e.kind, e.tsUs, e.attrs?.level, e.host]), [
    [LogKind.message, us("2026-01-05T10:00:00.123456Z"), "warning", undefined],
    [LogKind.error, 1765112435487000, "error", "gpu-node-3"],
    [LogKind.message, 1765112436001000, "info", "gpu-node-3"],
  ]);
});

test("a JSON document that is no log record (no level, or no message) is not read as one", () => {
  const { events } = parseLines(['{"model": "Qwen/Qwen3-0.6B", "messages": [{"role": "user", "content": "hi"}]}', '{"level": "error"}', '{"level": "medium", "msg": "a setting"}']);
  assert.ok(events.every((e) => e.kind === LogKind.unparsed), JSON.stringify(events.map((e) => e.kind)));
});

test("a traceback logged with a structured record's message is that record's: one exception", () => {
  const line = JSON.stringify({
    time: "2026-02-01T08:00:00.000001Z",
    level: "ERROR",
    target: "log",
    message: 'Scheduler hit an exception: Traceback (most recent call last):\n  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2673, in run_scheduler_process\n    scheduler.event_loop_overlap()\nRuntimeError: CUDA error: an illegal memory access was encountered',
  });
  const { events } = parseLines([line]);
  assert.equal(events.length, 1, JSON.stringify(events.map((e) => e.kind)));
  assert.equal(events[0]!.kind, LogKind.exception);
  assert.equal(events[0]!.attrs?.excType, "RuntimeError");
  assert.equal(events[0]!.tsUs, us("2026-02-01T08:00:00.000001Z"));
});

test("structured records inside a container runtime's wrapper are read the same", () => {
  const { events } = parseLines([`2025-09-02T15:54:02.101300000Z stderr F ${DYNAMO_ERROR}`], { wrapper: "cri" });
  assert.deepEqual(events.map((e) => [e.kind, e.tsUs]), [[LogKind.error, us("2025-09-02T15:54:02.101223Z")]]);
});
