// NCCL watchdog lines as torch prints them (c10 / glog prefixes, the
// logPrefix variants of several PyTorch versions) and uvicorn access lines.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines, us } from "./sglangHarness.js";

const BATCH = "Decode batch, #running-req: 58, #token: 90211, token usage: 0.21, cuda graph: True, gen throughput (token/s): 0.00, #queue-req: 0";
const PREV = `[2026-08-20 10:20:00.100 TP3] ${BATCH}`;

/** The event the second of two lines makes (the first dates it). */
function afterBatch(line: string) {
  const { events, issues } = parseLines([PREV, line]);
  assert.deepEqual(issues, []);
  assert.equal(events.length, 2);
  return events[1];
}

test("NCCL watchdog timeout with the c10 prefix `[rankN]:[EMDD hh:mm:ss.ns file:line]`", () => {
  const ev = afterBatch(
    "[rank3]:[E820 10:30:02.408271257 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout: " +
      "WorkNCCL(SeqNum=1234, OpType=ALLREDUCE, NumelIn=58720256, NumelOut=58720256, Timeout(ms)=600000) ran for 600020 milliseconds before timing out.",
  );
  assert.equal(ev.kind, LogKind.watchdog);
  // The line's own time (August 20; the year comes from the SGLang line before it), to the microsecond.
  assert.equal(ev.tsUs, us("2026-08-20T10:30:02.408271Z"));
  assert.deepEqual(ev.attrs, {
    backend: "nccl",
    report: "timeout",
    rank: 3,
    globalRank: 3,
    seq: 1234,
    op: "ALLREDUCE",
    numelIn: 58720256,
    numelOut: 58720256,
    timeoutMs: 600000,
    elapsedMs: 600020,
  });
});

test("NCCL watchdog timeout under each PyTorch logPrefix form", () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ["[PG 1 Rank 3] ", { rank: 3, pgName: "1" }],
    ["[PG 0 (default_pg) Rank 3] ", { rank: 3, pgName: "0", pgDesc: "default_pg" }],
    ["[PG ID 0 PG GUID 0(default_pg) Rank 3] ", { rank: 3, pgId: "0", pgUid: "0", pgDesc: "default_pg" }],
    ["[PG ID 2 PG GUID 5 Rank 3] ", { rank: 3, pgId: "2", pgUid: "5" }],
  ];
  for (const [prefix, expected] of cases) {
    const ev = afterBatch(
      `[rank11]:[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] ${prefix}Watchdog caught collective operation timeout: ` +
        "WorkNCCL(SeqNum=4, OpType=BROADCAST, NumelIn=112, NumelOut=112, Timeout(ms)=1800000) ran for 1800010 milliseconds before timing out.",
    );
    assert.equal(ev.kind, LogKind.watchdog, prefix);
    for (const [k, v] of Object.entries(expected)) assert.equal(ev.attrs?.[k], v, `${prefix} ${k}`);
    assert.equal(ev.attrs?.globalRank, 11);
    assert.equal(ev.attrs?.seq, 4);
    assert.equal(ev.attrs?.op, "BROADCAST");
    assert.equal(ev.attrs?.timeoutMs, 1800000);
    // December after an August SGLang line: the same year (months under half a year apart).
    assert.equal(ev.tsUs, us("2026-12-18T20:27:21.426415Z"));
  }
});

test("an old watchdog line without time, SeqNum or Numel fields takes the last prefixed time", () => {
  const ev = afterBatch(
    "[E ProcessGroupNCCL.cpp:737] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1802212 milliseconds before timing out.",
  );
  assert.equal(ev.kind, LogKind.watchdog);
  assert.equal(ev.tsUs, us("2026-08-20T10:20:00.100Z"));
  // The last line of its file: written after the batch line, nothing bounds it after.
  assert.deepEqual(ev.attrs, { backend: "nccl", report: "timeout", rank: 1, op: "ALLREDUCE", timeoutMs: 1800000, elapsedMs: 1802212, writtenBetweenUs: [us("2026-08-20T10:20:00.100Z"), null] });
});

test("a glog-format watchdog line (zero-padded month, thread id)", () => {
  const ev = afterBatch(
    "E0820 10:30:02.408271 48211 ProcessGroupNCCL.cpp:616] [Rank 6] Watchdog caught collective operation timeout: " +
      "WorkNCCL(SeqNum=77, OpType=_ALLGATHER_BASE, NumelIn=19008, NumelOut=152064, Timeout(ms)=600000) ran for 600031 milliseconds before timing out.",
  );
  assert.equal(ev.kind, LogKind.watchdog);
  assert.equal(ev.tsUs, us("2026-08-20T10:30:02.408271Z"));
  assert.equal(ev.attrs?.op, "_ALLGATHER_BASE");
  assert.equal(ev.attrs?.rank, 6);
  assert.equal(ev.attrs?.globalRank, undefined);
});

test("the watchdog's `failure detected` report gives the last enqueued and completed work", () => {
  const older = afterBatch(
    "[rank0]:[E820 10:30:02.465150152 ProcessGroupNCCL.cpp:1664] [PG 1 Rank 0] Exception (either an error or timeout) detected by watchdog at work: 1580, last enqueued NCCL work: 1582, last completed NCCL work: 1579.",
  );
  assert.equal(older.kind, LogKind.watchdog);
  assert.deepEqual(older.attrs, {
    backend: "nccl",
    report: "failure_detected",
    rank: 0,
    seq: 1580,
    lastEnqueued: 1582,
    lastCompleted: 1579,
    pgName: "1",
    globalRank: 0,
  });
  const newer = afterBatch(
    "[rank1]:[E820 10:30:02.484903450 ProcessGroupNCCL.cpp:2168] [PG ID 1 PG GUID 1 Rank 1]  failure detected by watchdog at work sequence id: 1 PG status: last enqueued work: 547, last completed work: 546",
  );
  assert.equal(newer.attrs?.seq, 1);
  assert.equal(newer.attrs?.lastEnqueued, 547);
  assert.equal(newer.attrs?.lastCompleted, 546);
  assert.equal(newer.attrs?.pgId, "1");
});

test("a watchdog line across New Year takes the next year", () => {
  const { events } = parseLines([
    `[2026-12-31 23:59:58 TP3] ${BATCH}`,
    "[rank3]:[E101 00:00:03.000000001 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600003 milliseconds before timing out.",
  ]);
  assert.equal(events[1].tsUs, us("2027-01-01T00:00:03Z"));
});

test("a watchdog line before any SGLang line is dated once a year is known", () => {
  const { events, issues } = parseLines([
    "[rank3]:[E820 10:19:59.500000000 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600003 milliseconds before timing out.",
    PREV,
  ]);
  assert.deepEqual(issues, []);
  assert.equal(events[0].kind, LogKind.watchdog);
  assert.equal(events[0].tsUs, us("2026-08-20T10:19:59.500Z"));
  assert.equal(events[1].tsUs, us("2026-08-20T10:20:00.100Z"));
});

test("other torch C++ lines are their own records, read but not interpreted", () => {
  const ev = afterBatch("[rank3]:[W820 10:30:01.000000000 ProcessGroupNCCL.cpp:1496] Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL.");
  assert.equal(ev.kind, LogKind.message);
  assert.equal(ev.attrs?.level, "warning");
  assert.equal(ev.attrs?.source, "ProcessGroupNCCL.cpp:1496");
  assert.equal(ev.attrs?.globalRank, 3);
  assert.equal(ev.tsUs, us("2026-08-20T10:30:01Z"));
});

test("uvicorn access lines", () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['INFO:     127.0.0.1:52344 - "POST /generate HTTP/1.1" 200 OK', { level: "INFO", client: "127.0.0.1:52344", method: "POST", path: "/generate", httpVersion: "1.1", status: 200, reason: "OK" }],
    ['INFO:     10.0.1.5:40112 - "GET /health HTTP/1.1" 503 Service Unavailable', { client: "10.0.1.5:40112", method: "GET", path: "/health", status: 503, reason: "Service Unavailable" }],
    ['INFO:     [::1]:40112 - "POST /v1/chat/completions?stream=true HTTP/1.1" 400 Bad Request', { client: "[::1]:40112", path: "/v1/chat/completions?stream=true", status: 400 }],
    ['INFO:      - "GET /get_model_info HTTP/1.0" 200 OK', { client: "", method: "GET", httpVersion: "1.0" }],
    ['WARNING:  127.0.0.1:52344 - "GET /metrics HTTP/1.1" 404 Not Found', { level: "WARNING", status: 404 }],
    // uvicorn with colours forced: the escapes go, the fields stay.
    ['INFO:     127.0.0.1:52344 - "\u001b[1mPOST /generate HTTP/1.1\u001b[0m" \u001b[32m200 OK\u001b[0m', { method: "POST", path: "/generate", status: 200, reason: "OK" }],
  ];
  for (const [msg, expected] of cases) {
    const { events, issues } = parseLines([`[2026-08-20 10:31:00] ${msg}`]);
    assert.deepEqual(issues, [], msg);
    const ev = events[0];
    assert.equal(ev.kind, LogKind.httpAccess, msg);
    assert.equal(ev.tsUs, us("2026-08-20T10:31:00Z"));
    for (const [k, v] of Object.entries(expected)) assert.equal(ev.attrs?.[k], v, `${msg}: ${k}`);
    assert.equal(ev.text, `[2026-08-20 10:31:00] ${msg}`);
  }
});

test("an access line whose status says the request failed on the server (a 5xx but 503) is the request's failure, http.failed", () => {
  const { events, issues } = parseLines([
    // A user's log (the uvicorn template's former sample), and a code with no reason phrase.
    '[2026-04-06 12:49:33] INFO:     192.168.0.45:57586 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error',
    '[2026-04-06 12:49:34] INFO:     127.0.0.1:52344 - "POST /abort_request HTTP/1.1" 599 ',
  ]);
  assert.deepEqual(issues, []);
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.status, e.attrs?.failureClass, e.attrs?.error]), [
    [LogKind.httpFailed, 500, "request", "POST /v1/chat/completions answered 500 Internal Server Error"],
    [LogKind.httpFailed, 599, "request", "POST /abort_request answered 599"],
  ]);
  assert.equal(events[1]!.attrs?.reason, undefined);
});

test("uvicorn's other lines are read but not interpreted", () => {
  const { events } = parseLines([
    "[2026-08-20 10:00:10] INFO:     Started server process [48211]",
    "[2026-08-20 10:00:10] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)",
  ]);
  assert.deepEqual(
    events.map((e) => e.kind),
    [LogKind.message, LogKind.message],
  );
});

test("uvicorn's access record with no level before it (a format that prints the message alone) is an access line", () => {
  // sgl-project/sglang#19712 (a server whose log lines carry no prefix), as pasted.
  const { events } = parseLines([
    '10.32.6.65:47558 - "GET /health_generate HTTP/1.1" 200 OK',
    "Prefill batch, #new-seq: 1, #new-token: 448, #cached-token: 0, token usage: 0.09, #running-req: 7, #queue-req: 5, input throughput (token/s): 7327.79, cuda graph: False",
    '127.0.0.1:59888 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
  ]);
  assert.deepEqual(events.map((e) => e.kind), [LogKind.httpAccess, LogKind.prefillBatch, LogKind.httpAccess]);
  assert.deepEqual(events[0]!.attrs, { client: "10.32.6.65:47558", method: "GET", path: "/health_generate", httpVersion: "1.1", status: 200, reason: "OK" });
  assert.equal(events[2]!.attrs?.status, 200);
  // uvicorn's own message under a plain `%(message)s` format has no reason phrase (written in the same shape).
  assert.equal(parseLines(['[::1]:40112 - "GET /health HTTP/1.1" 503']).events[0]!.attrs?.status, 503);
  // A line that only looks like one (no client address and port before ` - "`) is not.
  assert.equal(parseLines(['2026 - "a quoted title" 200 pages']).events[0]!.kind, LogKind.unparsed);
});
