// Batch lines of every era (docs/protocol.md §2, §2.3;
// docs/hicache-indexk.md §3.7). Fields keep their logged names.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseOne, us } from "./sglangHarness.js";

test("v0.5.18 PD prefill batch line: every field, numbers as numbers, graph as boolean", () => {
  const ev = parseOne(
    "[2026-08-20 10:15:32 DP0 TP0] Prefill batch, #new-seq: 3, #new-token: 12288, #cached-token: 2048, token usage: 0.21, " +
      "#running-req: 3, #queue-req: 5, #pending-token: 0, #bootstrap-req: 7, #inflight-req: 12, #optimistic-req: 0, " +
      "cuda graph: False, input throughput (token/s): 48211.37",
  );
  assert.equal(ev.kind, LogKind.prefillBatch);
  assert.equal(ev.role, "prefill");
  assert.equal(ev.tsUs, us("2026-08-20T10:15:32Z"));
  assert.equal(ev.dp, 0);
  assert.equal(ev.tp, 0);
  assert.deepEqual(ev.attrs, {
    "#new-seq": 3,
    "#new-token": 12288,
    "#cached-token": 2048,
    "token usage": 0.21,
    "#running-req": 3,
    "#queue-req": 5,
    "#pending-token": 0,
    "#bootstrap-req": 7,
    "#inflight-req": 12,
    "#optimistic-req": 0,
    "cuda graph": false,
    "input throughput (token/s)": 48211.37,
  });
});

test("v0.5.18 PD decode batch line", () => {
  const ev = parseOne(
    "[2026-08-20 10:15:40 DP1 TP4] Decode batch, #running-req: 64, #token: 181234, token usage: 0.43, pre-allocated usage: 0.06, " +
      "#prealloc-req: 3, #transfer-req: 58, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 3712.55, #queue-req: 0",
  );
  assert.equal(ev.kind, LogKind.decodeBatch);
  assert.equal(ev.role, "decode");
  assert.equal(ev.dp, 1);
  assert.equal(ev.tp, 4);
  assert.deepEqual(ev.attrs, {
    "#running-req": 64,
    "#token": 181234,
    "token usage": 0.43,
    "pre-allocated usage": 0.06,
    "#prealloc-req": 3,
    "#transfer-req": 58,
    "#retracted-req": 0,
    "cuda graph": true,
    "gen throughput (token/s)": 3712.55,
    "#queue-req": 0,
  });
});

test("≤ v0.5.3: `Prefill batch.` with a trailing comma-space and the old PD queue names", () => {
  const ev = parseOne(
    "[2025-10-01 08:00:05 TP0] Prefill batch. #new-seq: 1, #new-token: 4096, #cached-token: 0, token usage: 0.05, " +
      "#unbootstrapped-req: 2, #queue-req: 0, #transferring-req: 4, input throughput (token/s): 9021.44, ",
  );
  assert.equal(ev.kind, LogKind.prefillBatch);
  assert.equal(ev.role, "prefill");
  assert.deepEqual(ev.attrs, {
    "#new-seq": 1,
    "#new-token": 4096,
    "#cached-token": 0,
    "token usage": 0.05,
    "#unbootstrapped-req": 2,
    "#queue-req": 0,
    "#transferring-req": 4,
    "input throughput (token/s)": 9021.44,
  });
});

test("≤ v0.5.3: `Decode batch.` with a trailing comma-space", () => {
  const ev = parseOne(
    "[2025-10-01 08:00:06 TP0] Decode batch. #running-req: 12, #token: 30211, token usage: 0.07, gen throughput (token/s): 811.20, #queue-req: 0, ",
  );
  assert.equal(ev.kind, LogKind.decodeBatch);
  assert.equal(ev.attrs?.["#running-req"], 12);
  assert.equal(ev.attrs?.["gen throughput (token/s)"], 811.2);
  assert.equal(ev.attrs?.["#queue-req"], 0);
  assert.equal(Object.keys(ev.attrs ?? {}).length, 5);
});

test("#9366 / SGLANG_LOG_FORWARD_ITERS: `Prefill batch [N],` keeps the iteration", () => {
  const ev = parseOne(
    "[2025-10-24 12:00:00 TP0] Prefill batch [18342], #new-seq: 2, #new-token: 8192, #cached-token: 512, token usage: 0.11, " +
      "#running-req: 2, #queue-req: 1, #prealloc-req: 0, #inflight-req: 3, input throughput (token/s): 30111.02, cuda graph: False",
  );
  assert.equal(ev.kind, LogKind.prefillBatch);
  assert.equal(ev.attrs?.forwardIter, 18342);
  // ≤ v0.5.9 order (graph last) and the ≤ v0.5.11 name `#prealloc-req` on prefill.
  assert.equal(ev.attrs?.["#prealloc-req"], 0);
  assert.equal(ev.attrs?.["#inflight-req"], 3);
  assert.equal(ev.attrs?.["cuda graph"], false);
  assert.equal(ev.attrs?.["input throughput (token/s)"], 30111.02);
  assert.equal(ev.role, "prefill");
});

test("optional suffixes: TFLOPS, bandwidths and `fwd occupancy` as a percent number", () => {
  const ev = parseOne(
    "[2026-08-20 10:15:40.120 TP0] Decode batch, #running-req: 64, #token: 181234, token usage: 0.43, pre-allocated usage: 0.06, " +
      "#prealloc-req: 3, #transfer-req: 9, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 3712.55, #queue-req: 0, " +
      "est. decode TFLOPS/s (per GPU): 141.27, est. read BW (GB/s per GPU): 2210.40, est. write BW (GB/s per GPU): 12.05, fwd occupancy: 87.50%",
  );
  assert.equal(ev.attrs?.["est. decode TFLOPS/s (per GPU)"], 141.27);
  assert.equal(ev.attrs?.["est. read BW (GB/s per GPU)"], 2210.4);
  assert.equal(ev.attrs?.["est. write BW (GB/s per GPU)"], 12.05);
  assert.equal(ev.attrs?.["fwd occupancy"], 87.5);
});

test("hybrid-model pool fields and spec-decoding fields are kept", () => {
  const ev = parseOne(
    "[2026-08-20 10:15:40 TP0] Decode batch, #running-req: 8, #full token: 9000, full token usage: 0.10, #swa token: 4000, " +
      "swa token usage: 0.20, accept len: 2.81, accept rate: 0.70, cuda graph: True, gen throughput (token/s): 990.00, #queue-req: 0",
  );
  assert.equal(ev.attrs?.["#full token"], 9000);
  assert.equal(ev.attrs?.["swa token usage"], 0.2);
  assert.equal(ev.attrs?.["accept len"], 2.81);
});

test("a non-disaggregated server's batch lines keep the role the context gave", () => {
  const line =
    "[2026-08-20 10:15:32 TP0] Prefill batch, #new-seq: 1, #new-token: 512, #cached-token: 0, token usage: 0.01, " +
    "#running-req: 0, #queue-req: 0, #pending-token: 0, cuda graph: False, input throughput (token/s): 1200.00";
  assert.equal(parseOne(line).role, undefined);
  assert.equal(parseOne(line, { role: "router" }).role, "router");
  assert.equal(parseOne(line).kind, LogKind.prefillBatch);
});

test("a field without `key: value` shape is kept in attrs.extra, not dropped", () => {
  const ev = parseOne("[2026-08-20 10:15:32 TP0] Decode batch, #running-req: 4, something odd, #queue-req: 0");
  assert.equal(ev.kind, LogKind.decodeBatch);
  assert.deepEqual(ev.attrs?.extra, ["something odd"]);
  assert.equal(ev.attrs?.["#queue-req"], 0);
});

test("lines that only start like a batch line are not batch lines", () => {
  assert.equal(parseOne("[2026-08-20 10:15:32 TP0] Prefill batches are slow").kind, LogKind.message);
  assert.equal(parseOne("[2026-08-20 10:15:32 TP0] Decode batch size 64 reached").kind, LogKind.message);
});

test("numbers read in place equal JavaScript's own reading of the same digits", () => {
  // A seeded sweep of decimals of every length the fast path accepts, and a few it leaves to Number().
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const values: string[] = ["0", "-0.5", "0.1", "0.3", "1e5", "3712.55", "99999999999999.9", "123456789012345678", "5.", "-", "1.2.3"];
  for (let i = 0; i < 2000; i++) {
    const intDigits = String(Math.floor(next() * 10 ** Math.floor(next() * 9)));
    const frac = next() < 0.7 ? "." + String(Math.floor(next() * 10 ** (1 + Math.floor(next() * 6)))).padStart(2, "0") : "";
    values.push((next() < 0.1 ? "-" : "") + intDigits + frac);
  }
  const line = "[2026-08-20 10:15:32 TP0] Decode batch, " + values.map((v, i) => `f${i}: ${v}`).join(", ");
  const ev = parseOne(line);
  values.forEach((v, i) => {
    const expected = /^-?\d/.test(v) && Number.isFinite(Number(v)) ? Number(v) : v;
    assert.equal(ev.attrs?.[`f${i}`], expected, v);
  });
});
