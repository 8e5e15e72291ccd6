// Access lines whose status says the request failed on the server
// (ingest/formats/templates/platform/uvicorn.ts): a 500 answered to a client is
// that request's failure, medium, and a 503 of the health endpoint while the
// server starts is no failure (SGLang's http_server.py health_generate answers
// 503 until the server is up). The lines are in the shape SGLang's log format
// prints uvicorn's access logger in (docs/protocol.md §1).

import { test } from "node:test";
import assert from "node:assert/strict";
import { analyzeLines as report, violated } from "./handBundles.js";


const STARTED = [
  '[2026-03-02 09:14:02] INFO:     10.0.4.9:51022 - "GET /health HTTP/1.1" 503 Service Unavailable',
  '[2026-03-02 09:14:07] INFO:     10.0.4.9:51030 - "GET /health HTTP/1.1" 503 Service Unavailable',
  "[2026-03-02 09:14:09] The server is fired up and ready to roll!",
  '[2026-03-02 09:14:12] INFO:     10.0.4.9:51044 - "GET /health HTTP/1.1" 200 OK',
  "[2026-03-02 09:14:20 TP0] Decode batch. #running-req: 3, #token: 1406, token usage: 0.01, cuda graph: True, gen throughput (token/s): 212.40, #queue-req: 0, ",
];

test("a request answered 500 is that request's failure: medium, named by its method, path and status", () => {
  const r = report("decode.log", [
    ...STARTED,
    '[2026-03-02 09:14:31] INFO:     10.0.4.9:51102 - "POST /generate HTTP/1.1" 500 Internal Server Error',
    '[2026-03-02 09:14:31] INFO:     10.0.4.9:51104 - "POST /generate HTTP/1.1" 500 Internal Server Error',
    '[2026-03-02 09:14:33] INFO:     10.0.4.9:51110 - "POST /generate HTTP/1.1" 200 OK',
  ]);
  const failures = violated(r, "process-failure");
  assert.equal(failures.length, 1, "the two 500s are one failure");
  assert.equal(failures[0]!.severity, "medium");
  assert.match(failures[0]!.title, /POST \/generate answered 500 Internal Server Error/);
});

test("a health endpoint's 503 while the server starts, and 200s after, are no failure", () => {
  const r = report("decode.log", [...STARTED, '[2026-03-02 09:14:33] INFO:     10.0.4.9:51110 - "POST /generate HTTP/1.1" 200 OK']);
  assert.deepEqual(violated(r, "process-failure"), []);
});

test("the bare access record, with no level before it, is read the same way", () => {
  const r = report("router.log", ['10.0.4.9:51102 - "POST /v1/chat/completions HTTP/1.1" 502 Bad Gateway']);
  const failures = violated(r, "process-failure");
  assert.equal(failures.length, 1);
  assert.match(failures[0]!.title, /POST \/v1\/chat\/completions answered 502 Bad Gateway/);
});

test("a client's print of a 500 beside the server's log (curl's status line and the error body) is the request's failure, medium; a 400 body is not", () => {
  const r = report("curl.txt", [
    "HTTP/1.1 500 Internal Server Error",
    "content-type: application/json",
    "",
    '{"object":"error","message":"KV transfer failed for request 8f2c","type":"InternalServerError","param":null,"code":500}root@gpu-node-1:~# ',
  ]);
  const [failure, ...others] = violated(r, "process-failure");
  assert.equal(others.length, 0);
  assert.equal(failure!.severity, "medium");
  assert.match(failure!.title, /the server answered 500 Internal Server Error/);
  assert.match(failure!.explanation, /the server answered 500 InternalServerError: KV transfer failed for request 8f2c/);
  const refused = report("curl.txt", ['{"error":{"message":"This model\'s maximum context length is 4096 tokens.","type":"BadRequestError","param":null,"code":400}}']);
  assert.deepEqual(violated(refused, "process-failure"), []);
});

test("a request that failed inside an exception group is titled by the member's exception, not the group's", () => {
  const r = report("decode.log", [
    ...STARTED,
    "ERROR:    Exception in ASGI application",
    "  + Exception Group Traceback (most recent call last):",
    '  |   File "/usr/local/lib/python3.12/dist-packages/starlette/_utils.py", line 76, in collapse_excgroups',
    "  |     yield",
    "  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)",
    "  +-+---------------- 1 ----------------",
    "    | Traceback (most recent call last):",
    '    |   File "/usr/local/lib/python3.12/dist-packages/sglang/srt/managers/tokenizer_manager.py", line 1210, in _wait_one_response',
    '    |     raise ValueError(out["meta_info"]["finish_reason"]["message"])',
    "    | ValueError: KV transfer failed for request rid=3f2a bootstrap_room=7741",
    "    +------------------------------------",
  ]);
  const [failure] = violated(r, "process-failure");
  assert.match(failure!.title, /: ValueError: KV transfer failed for request rid=3f2a bootstrap_room=7741$/);
  // The explanation quotes the group's first line once; the member's message is the title's.
  assert.equal(failure!.explanation.match(/ExceptionGroup: unhandled errors/g)?.length, 1);
});
