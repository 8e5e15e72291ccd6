// What a user's shell and HTTP client print beside the server's logs, read as the records they are: bash's job table
// when a background server dies, curl's status line and an OpenAI-compatible server's error body. The bash lines are
// bash 5.2's own output (jobs started with `&` in an interactive shell, then `jobs`); the curl lines are curl 7.88's
// `-i` and `-v` output against a local server answering each status; the error bodies are in the shape of SGLang's
// and vLLM's ErrorResponse (ingest/formats/templates/platform/httpResponse.ts).
// `docker ps -a` rows are in the shape of the daemon's State.String (moby container/state.go) under the CLI's table.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines, parseOne } from "./sglangHarness.js";

test("bash's job table: a job killed, aborted or exiting non-zero is a death with its command; Done, Terminated and a stop's exit status are not", () => {
  const { events } = parseLines([
    "[2]   Exit 3                  sh -c \"exit 3\"",
    "[3]   Segmentation fault      sh -c 'kill -SEGV $$'",
    "[4]   Killed                  sh -c 'kill -9 $$'",
    "[1]-  Done                    sleep 0.2",
    "[5]+  Aborted                 (core dumped) sh -c 'ulimit -c unlimited; kill -ABRT $$'",
    "[6]+  Terminated              python3 bench.py",
    "[7]   Exit 130                python3 bench.py",
  ]);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.what, e.attrs?.signal, e.attrs?.command]),
    [
      [LogKind.crash, "bash: a job ended with Exit 3", undefined, 'sh -c "exit 3"'],
      [LogKind.crash, "Segmentation fault", "SIGSEGV", "sh -c 'kill -SEGV $$'"],
      [LogKind.crash, "Killed", "SIGKILL", "sh -c 'kill -9 $$'"],
      [LogKind.unparsed, undefined, undefined, undefined],
      [LogKind.crash, "Aborted", "SIGABRT", "sh -c 'ulimit -c unlimited; kill -ABRT $$'"],
      [LogKind.unparsed, undefined, undefined, undefined],
      [LogKind.unparsed, undefined, undefined, undefined],
    ],
  );
});

test("a dead job's command names the server's role when it states --disaggregation-mode, in either of argparse's spellings", () => {
  const decode = parseOne(
    "[2]-  Killed                  python3 -m sglang.launch_server --model-path /models/Qwen3-8B --disaggregation-mode decode --port 30001 > decode.log 2>&1",
  );
  assert.deepEqual([decode.kind, decode.role], [LogKind.crash, "decode"]);
  const prefill = parseOne("./launch.sh: line 9: 48102 Killed                  python3 -m sglang.launch_server --disaggregation-mode=prefill --port 30000");
  assert.deepEqual([prefill.kind, prefill.role, prefill.attrs?.signal], [LogKind.crash, "prefill", "SIGKILL"]);
  const zsh = parseOne("zsh: killed     python3 -m sglang.launch_server --model-path /models/Qwen3-8B");
  assert.deepEqual([zsh.kind, zsh.role, zsh.attrs?.command], [LogKind.crash, undefined, "python3 -m sglang.launch_server --model-path /models/Qwen3-8B"]);
});

test("curl's status line: a server error (a 5xx but 503) is the request's failure; another status is the answer", () => {
  const { events } = parseLines([
    "HTTP/1.0 500 Internal Server Error",
    "< HTTP/1.0 502 Bad Gateway",
    "HTTP/2 500 ",
    "HTTP/1.1 200 OK",
    "< HTTP/1.0 503 Service Unavailable",
  ]);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.status, e.attrs?.httpVersion, e.attrs?.error]),
    [
      [LogKind.httpFailed, 500, "1.0", "the server answered 500 Internal Server Error"],
      [LogKind.httpFailed, 502, "1.0", "the server answered 502 Bad Gateway"],
      [LogKind.httpFailed, 500, "2", "the server answered 500"],
      [LogKind.httpAccess, 200, "1.1", undefined],
      [LogKind.httpAccess, 503, "1.0", undefined],
    ],
  );
});

test("an OpenAI-compatible error body: its code is the status; a server error is the request's failure, even with the shell's prompt after it", () => {
  const { events } = parseLines([
    '{"object":"error","message":"Internal server error","type":"InternalServerError","param":null,"code":500}root@gpu-node-1:~# ',
    'data: {"error": {"object": "error", "message": "KV transfer failed for request 8f2c", "type": "InternalServerError", "param": null, "code": 500}}',
    '{"error":{"message":"This model\'s maximum context length is 4096 tokens.","type":"BadRequestError","param":null,"code":400}}',
    '{"object":"error","message":"The server is overloaded","type":"ServiceUnavailableError","param":null,"code":503}',
  ]);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.status, e.attrs?.errorType, e.attrs?.error]),
    [
      [LogKind.httpFailed, 500, "InternalServerError", "the server answered 500 InternalServerError: Internal server error"],
      [LogKind.httpFailed, 500, "InternalServerError", "the server answered 500 InternalServerError: KV transfer failed for request 8f2c"],
      [LogKind.httpAccess, 400, "BadRequestError", undefined],
      [LogKind.httpAccess, 503, "ServiceUnavailableError", undefined],
    ],
  );
  assert.equal(events[2]!.attrs?.message, "This model's maximum context length is 4096 tokens.");
});

test("JSON that is no HTTP answer is not read as one: a JSON-RPC error's code, an error without a status, a structured log record", () => {
  const { events } = parseLines([
    '{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"1"}',
    '{"success":false,"error":"Invalid JSON format"}',
    '{"level":"info","msg":"served","error":null}',
  ]);
  assert.deepEqual(
    events.map((e) => e.kind === LogKind.httpFailed || e.kind === LogKind.httpAccess),
    [false, false, false],
  );
});

test("`docker ps -a`: a container that exited non-zero is a death, named by its NAMES column; a clean exit, a stop's 143 and a running one are not", () => {
  const { events } = parseLines([
    "CONTAINER ID   IMAGE                          COMMAND                  CREATED          STATUS                            PORTS     NAMES",
    '3f2a1b9c8d7e   lmsysorg/sglang:v0.5.6-cu129   "python3 -m sglang.l…"   12 minutes ago   Exited (137) 2 minutes ago                  sglang-decode',
    '9a8b7c6d5e4f   lmsysorg/sglang:v0.5.6-cu129   "python3 -m sglang.l…"   12 minutes ago   Up 12 minutes                               sglang-prefill',
    '1a2b3c4d5e6f   nats:2.10                      "/nats-server -js"       12 minutes ago   Exited (0) Less than a second ago           nats',
    'a1b2c3d4e5f6   quay.io/coreos/etcd:v3.5.17    "etcd"                   2 hours ago      Exited (143) About a minute ago             etcd',
    '0f9e8d7c6b5a   lmsysorg/sglang:v0.5.6-cu129   "python3 -m sglang_r…"   2 hours ago      Exited (1) About an hour ago                sglang-router',
  ]);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.what, e.attrs?.signal]),
    [
      [LogKind.unparsed, undefined, undefined],
      [LogKind.crash, "container sglang-decode exited with code 137", "SIGKILL"],
      [LogKind.unparsed, undefined, undefined],
      [LogKind.unparsed, undefined, undefined],
      [LogKind.unparsed, undefined, undefined],
      [LogKind.crash, "container sglang-router exited with code 1", undefined],
    ],
  );
});
