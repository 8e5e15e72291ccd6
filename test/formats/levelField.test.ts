// A level word after a prefix no reader knows (ingest/formats/log/dialects/levelField.ts).
// The lines are written by hand in the shape each logger prints (logback's
// default pattern, nginx's error log, the NATS server's `[ERR]` labels, logfmt
// as go-kit, Go's slog and logrus print it), and
// the negative ones are lines of the working half of test/corpus that carry
// no level.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines } from "./sglangHarness.js";

test("a level after a prefix of times, pids and bracketed fields is the line's level; an error one is a failure", () => {
  const { events } = parseLines([
    "12:00:00.123 [main] ERROR c.e.EtcdClient - connection to etcd lost",
    "2025/01/01 12:00:00 [error] 123#0: *1 connect() failed (111: Connection refused) while connecting to upstream",
    "[1] 2025/01/01 12:00:00.000000 [ERR] 10.0.0.5:4222 - cid:5 - Client parser ERROR, state=0",
    "[1] 2025/01/01 12:00:01.000000 [INF] Server is ready",
    "[proxy] WARN: decoder slow to answer, retrying",
    "rank0: FATAL cannot allocate the KV pool",
  ]);
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.level]), [
    [LogKind.error, "error"],
    [LogKind.error, "error"],
    [LogKind.error, "error"],
    [LogKind.message, "info"],
    [LogKind.message, "warning"],
    [LogKind.error, "fatal"],
  ]);
  // The message is what follows the level.
  assert.equal(events[0]!.attrs?.error, "c.e.EtcdClient - connection to etcd lost");
  assert.equal(events[2]!.attrs?.error, "10.0.0.5:4222 - cid:5 - Client parser ERROR, state=0");
});

test("prose with a level word in it, and lines with no level, keep no level", () => {
  const { events } = parseLines([
    "Request failed with ERROR code 5",
    "NCCL version 2.20.5+cuda12.4",
    "Rank 1 workspace[0] 0x79c21c000000",
    "Cache shape torch.Size([163840, 64])",
    "completed 500 entries",
    "2 ERROR(S) in the summary above",
  ]);
  assert.deepEqual(events.map((e) => e.attrs?.level), events.map(() => undefined));
  // The first is a failure by its verdict (`… failed with …`, ingest/formats/log/unread.ts), not by a level.
  assert.deepEqual(events.map((e) => e.kind), [LogKind.error, ...events.slice(1).map(() => LogKind.unparsed)]);
});

test("logfmt: the level pair among the record's pairs is its level, whatever pairs come before it", () => {
  const { events } = parseLines([
    'ts=2024-11-05T09:12:44.123Z caller=notifier.go:530 level=error component=notifier alertmanager=http://am:9093/api/v2/alerts count=1 msg="Error sending alert" err="context deadline exceeded"',
    'time=2025-03-01T10:00:00.000Z level=INFO source=main.go:42 msg="Server is ready to receive web requests."',
    'time="2025-03-01T10:00:01Z" level=warning msg="retrying the scrape of sglang-decode-0"',
    'level=medium interval=30.0s',
  ]);
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.level]), [
    [LogKind.error, "error"],
    [LogKind.message, "info"],
    [LogKind.message, "warning"],
    [LogKind.unparsed, undefined],
  ]);
  assert.equal(events[0]!.attrs?.error, 'component=notifier alertmanager=http://am:9093/api/v2/alerts count=1 msg="Error sending alert" err="context deadline exceeded"');
});

// Each line written by hand in the shape its logger prints: zap's console encoder (tab-separated, the level in lower
// case), loguru's default format, spdlog's default logger (no name field), env_logger's default format (sgl-router
// before tracing), and a C++ logger's `<time> error <pid>` (sglang#10748's memory-fabric lines, the working half).
test("a level right after an ISO time, in any case, bare, padded or bracketed, is the line's level; an error one is a failure", () => {
  const { events } = parseLines([
    '2025-09-22T20:20:40.102Z\terror\tproxy/proxy.go:120\tfailed to reach the prefill pod\t{"error": "context deadline exceeded"}',
    "2025-09-22T20:20:40.103Z\tinfo\tproxy/proxy.go:88\tserving on :8000",
    "2025-09-22 20:20:40.123 | ERROR    | kvcache.worker:run:212 - worker died",
    "2025-09-22 20:20:40.124 | WARNING  | kvcache.worker:run:230 - slow store",
    "[2025-09-22 20:20:40.125] [error] transfer to peer 3 failed",
    "[2025-09-22 20:20:40.126] [info] transfer to peer 3 done",
    "[2025-03-05T10:00:00Z ERROR sglang_router_rs::router] Failed to send request to the prefill server",
    "[2025-03-05T10:00:01Z INFO  sglang_router_rs::server] Router ready",
    "2025-09-22 20:20:40.102319 error 12789 pid[12789] [SMEM smem_trans.cpp:44] hybm core init failed: -3",
    "2025-09-22 20:20:41.001 [grpc-default-executor-3] ERROR c.e.EtcdClient - connection to etcd lost",
    "2025-09-22 20:20:41 Starting ERROR handler",
  ]);
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.level]), [
    [LogKind.error, "error"],
    [LogKind.message, "info"],
    [LogKind.error, "error"],
    [LogKind.message, "warning"],
    [LogKind.error, "error"],
    [LogKind.message, "info"],
    [LogKind.error, "error"],
    [LogKind.message, "info"],
    [LogKind.error, "error"],
    // logback's pattern with its date: the thread's field between the time and the level (./levelField.ts).
    [LogKind.error, "error"],
    // Prose after the time: a bare word is no field, so the level word in it is none.
    [LogKind.message, undefined],
  ]);
  // Dated by the line; the message is what follows the level (and env_logger's module path, read as the line's place).
  assert.equal(events[0]!.tsUs, Date.UTC(2025, 8, 22, 20, 20, 40, 102) * 1000);
  assert.equal(events[2]!.attrs?.error, "kvcache.worker:run:212 - worker died");
  assert.equal(events[6]!.attrs?.error, "Failed to send request to the prefill server");
  assert.equal(events[6]!.attrs?.source, "sglang_router_rs::router");
});
