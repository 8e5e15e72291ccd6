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
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.level]), events.map(() => [LogKind.unparsed, undefined]));
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
