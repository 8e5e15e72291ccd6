// llama.cpp's common log (ingest/formats/log/dialects/llamaCppHead.ts: ggml-org/llama.cpp common/log.cpp
// common_log_entry::print, `%d.%02d.%03d.%03d ` since the log started, then `I `, `W `, `E ` or `D `). The first test's
// lines are the working half's gpustack-1442-a as pasted (llama-box under GPUStack); the others are written by hand
// from the format string.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines } from "./sglangHarness.js";

test("llama-box's lines: info access lines, a warning that it retries, errors that it failed to decode", () => {
  const { events, issues } = parseLines([
    "1148.24.589.935 I srv       log_server_response: rid 660380593036 | POST /v1/chat/completions 172.17.0.3:34840 | status 200 | cost 10.48s",
    "1148.24.589.941 I srv       log_server_response: rid 660380592637 | POST /v1/chat/completions 172.17.0.3:34830 | status 200 | cost 10.48s",
    "1148.24.894.085 E llama_decode: failed to decode, ret = 1",
    "1148.24.894.088 W srv              update_slots: failed to find free space in the KV cache, retrying with smaller batch size - try increasing it via total context size or enabling defragmentation, i = -1024, n_batch = 1024, ret = 1",
    "1148.24.894.178 E llama_decode: failed to decode, ret = 1",
  ]);
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.level]),
    [
      [LogKind.message, "info"],
      [LogKind.message, "info"],
      [LogKind.error, "error"],
      [LogKind.message, "warning"],
      [LogKind.error, "error"],
    ],
  );
  assert.equal(events[2]!.attrs?.error, "llama_decode: failed to decode, ret = 1", "the message without the time and the letter");
});

test("minutes unpadded from zero, and the debug letter; the time since start is not read as a time of day", () => {
  const { events } = parseLines([
    "0.00.229.749 I srv    load_model: loading model '/models/qwen2.5-0.5b-instruct-q4_k_m.gguf'",
    "0.13.127.894 W llama_context: n_ctx_seq (4096) < n_ctx_train (32768) -- the full capacity of the model will not be utilized",
    "12.05.001.002 D slot update_slots: id  0 | task 3 | kv cache rm [0, end)",
  ]);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.level]),
    [
      [LogKind.message, "info"],
      [LogKind.message, "warning"],
      [LogKind.message, "debug"],
    ],
  );
});

test("lookalikes are not llama.cpp's head: another letter, an address, a version", () => {
  const { events } = parseLines([
    "1148.24.894.085 X llama_decode: failed to decode, ret = 1",
    "10.1.84.77 E connection refused",
    "1.2.3 I installed",
  ]);
  assert.ok(events.every((e) => e.attrs?.level !== "info"));
});
