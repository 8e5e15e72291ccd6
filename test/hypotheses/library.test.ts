// Each named hypothesis of docs/hypotheses/ on small hand-written incidents:
// one where it holds, one where it is violated (the witnesses at the lines
// written to break it), one where the evidence it ranges over is missing.

import { test } from "node:test";
import assert from "node:assert/strict";
import { loadLibrary } from "../../analyzer/hypotheses/library.js";
import { checkFiles, checksum, decode, named, prefill, ROOM_A, ROOM_B, witnessPlaces } from "./handIncident.js";

type Files = Record<string, string[]>;
interface Case {
  holds: Files;
  violated: Files;
  /** "file:line file:line" of each witness pair ("-" when the partner is missing). */
  witnesses: string[];
  missing: Files;
  /** Words the missing-evidence note names. */
  names: string;
}

const D0 = "d0/probe-tp0.jsonl";
const D1 = "d0/probe-tp1.jsonl";
const P0 = "p0/probe-tp0.jsonl";
const read = (s: number, room: string, extra: Record<string, unknown> = {}) => decode(s, "kernel.read", { buffer: "index_k", layer: 0, room, pages: [[0, 4]], consumer: -1, ...extra });
const notify = (s: number, room: string, tag: string) => decode(s, "kv.notify", { room, tag: `${room}${tag}` });
const config = (s: number, fields: Record<string, unknown>, side = prefill) => side(s, "config", { model: "deepseek-ai/DeepSeek-V3.2", ...fields });
const bootstrapDeath = [
  "Exception in thread Thread-3 (bootstrap_thread):",
  "Traceback (most recent call last):",
  '  File "/sgl-workspace/sglang/python/sglang/srt/disaggregation/nixl/conn.py", line 1243, in bootstrap_thread',
  "    assert (",
  "AssertionError: First message should be b'NixlMsgGuard'. Foreign traffic?",
];
const prefillLine = (hms: string, msg: string) => `[2026-06-11 ${hms} DP0 TP0] ${msg}`;
const decodeLine = (hms: string, msg: string) => `[2026-06-11 ${hms} DP0 TP0] ${msg}`;
const decodeBatch = decodeLine("14:05:20", "Decode batch, #running-req: 1, #token: 4096, token usage: 0.03, pre-allocated usage: 0.00, #prealloc-req: 0, #transfer-req: 0, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 812.40, #queue-req: 0");
/** A decode PD failure line for room A (docs/protocol.md §3.4) with `reason` after the KVTransferError wrapper (§3.5). */
const decodeFailure = (hms: string, reason: string) =>
  decodeLine(hms, `Decode transfer failed for request rank=0 decode_req.req.rid='r-a' decode_req.req.bootstrap_room=${ROOM_A} with exception KVTransferError(bootstrap_room=${ROOM_A}): ${reason}`);
const timedOut = decodeFailure("14:10:21", `Request ${ROOM_A} timed out after 300.0s in KVPoll.WaitingForInput`);
const peerGone = decodeFailure("14:10:22", "Failed to get kvcache from prefill instance, it might be dead");
const schedulerOom = [
  prefillLine("14:06:00", "Scheduler hit an exception: Traceback (most recent call last):"),
  '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2950, in run_scheduler_process',
  "    scheduler.event_loop_normal_disagg_prefill()",
  "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
];

const CASES: Record<string, Case> = {
  "hicache-gated-index-k-read": {
    holds: { [D0]: [decode(1, "hicache.load", { slot: 0, layers: 61, room: ROOM_A, pages: [[0, 4]] }), decode(1.1, "hicache.layer", { slot: 0, layer: 0 }), read(1.2, ROOM_A, { consumer: 0 })] },
    // The second load of slot 0 restarts the wait: the read at line 5 runs before its layer 0 (line 6), after only the first load's layer (line 2).
    violated: {
      [D0]: [
        decode(1, "hicache.load", { slot: 0, layers: 61, room: ROOM_A, pages: [[0, 4]] }), decode(1.1, "hicache.layer", { slot: 0, layer: 0 }), read(1.2, ROOM_A, { consumer: 0 }),
        decode(2, "hicache.load", { slot: 0, layers: 61, room: ROOM_B, pages: [[8, 12]] }), read(2.1, ROOM_B, { consumer: 0, pages: [[8, 12]] }), decode(2.2, "hicache.layer", { slot: 0, layer: 0 }),
      ],
    },
    witnesses: ["d0/probe-tp0.jsonl:5 d0/probe-tp0.jsonl:2"],
    missing: { [D0]: [decode(1, "hicache.load", { slot: 0, layers: 61, room: ROOM_A }), read(1.2, ROOM_A, { consumer: 0 })] },
    names: "no hicache.layer event",
  },
  "read-after-last-notify": {
    holds: { [D0]: [notify(1, ROOM_A, "_kv_0_1_0"), notify(1.1, ROOM_A, "_aux"), read(2, ROOM_A)] },
    violated: { [D0]: [notify(1, ROOM_A, "_kv_0_0_0"), read(2, ROOM_A), notify(3, ROOM_A, "_kv_1_1_0")] },
    witnesses: ["d0/probe-tp0.jsonl:2 d0/probe-tp0.jsonl:3"],
    missing: { [D0]: [read(2, ROOM_A)] },
    names: "no kv.notify event",
  },
  "notify-after-data": {
    holds: { [P0]: [prefill(1, "kv.post", { room: ROOM_A, chunk: 0, last: true, pages: [[0, 4]] })], [D0]: [notify(1.5, ROOM_A, "_kv_0_1_0")] },
    // Room B's notification at line 2 follows no write prefill posted for it.
    violated: { [P0]: [prefill(1, "kv.post", { room: ROOM_A, chunk: 0, last: true, pages: [[0, 4]] })], [D0]: [notify(1.5, ROOM_A, "_kv_0_1_0"), notify(1.6, ROOM_B, "_kv_0_1_0")] },
    witnesses: ["d0/probe-tp0.jsonl:2 -"],
    missing: { [D0]: [notify(1.5, ROOM_A, "_kv_0_1_0")] },
    names: "no kv.post event",
  },
  "chunks-and-aux-before-read": {
    holds: { [D0]: [notify(1, ROOM_A, "_kv_0_1_0"), notify(1.1, ROOM_A, "_aux"), read(2, ROOM_A)] },
    // Room B's last chunk arrived but its aux did not before the read at line 5.
    violated: { [D0]: [notify(1, ROOM_A, "_kv_0_1_0"), notify(1.1, ROOM_A, "_aux"), read(2, ROOM_A), notify(3, ROOM_B, "_kv_0_1_0"), read(4, ROOM_B)] },
    witnesses: ["d0/probe-tp0.jsonl:5 -"],
    // Notifications without tags: which were chunks and which the aux cannot be told.
    missing: { [D0]: [decode(1, "kv.notify", { room: ROOM_A, status: 4 }), read(2, ROOM_A)] },
    names: "no kv.notify event carries tag",
  },
  "page-not-reused-in-flight": {
    holds: { [P0]: [prefill(1, "kv.post", { room: ROOM_A, chunk: 0, pages: [[0, 4]] }), prefill(1.2, "kv.done", { room: ROOM_A, chunk: 0 })], [D0]: [decode(2, "kv.free", { room: ROOM_A, buffer: "index_k", pages: [[0, 4]] })] },
    // Decode freed room A's pages at 14:00:02; prefill posted its write at 14:00:03 (the late write of a stale reuse).
    violated: { [P0]: [prefill(3, "kv.post", { room: ROOM_A, chunk: 0, pages: [[0, 4]] }), prefill(3.2, "kv.done", { room: ROOM_A, chunk: 0 })], [D0]: [decode(2, "kv.free", { room: ROOM_A, buffer: "index_k", pages: [[0, 4]] })] },
    witnesses: ["d0/probe-tp0.jsonl:1 p0/probe-tp0.jsonl:1", "d0/probe-tp0.jsonl:1 p0/probe-tp0.jsonl:2"],
    missing: { [D0]: [decode(2, "kv.free", { room: ROOM_A, buffer: "index_k", pages: [[0, 4]] })] },
    names: "no kv.post event",
  },
  "same-branch-before-collective": {
    holds: { [D0]: [decode(1, "sched.iter", { iter: 7, branch: "run_batch" })], [D1]: [decode(1, "sched.iter", { iter: 7, branch: "run_batch" }, 1)] },
    violated: { [D0]: [decode(1, "sched.iter", { iter: 7, branch: "run_batch" })], [D1]: [decode(1.001, "sched.iter", { iter: 7, branch: "on_idle" }, 1)] },
    witnesses: ["d0/probe-tp0.jsonl:1 d0/probe-tp1.jsonl:1"],
    missing: { [D0]: [decode(1, "sched.iter", { iter: 7, branch: "run_batch" })] },
    names: "no two sched.iter events share a key",
  },
  "collectives-agree": {
    holds: { [D0]: [decode(1, "coll.enter", { group: "tp", op: "all_reduce", seq: 41, digest: "9f2c" })], [D1]: [decode(1, "coll.enter", { group: "tp", op: "all_reduce", seq: 41, digest: "9f2c" }, 1)] },
    violated: { [D0]: [decode(1, "coll.enter", { group: "tp", op: "all_reduce", seq: 41, digest: "9f2c" })], [D1]: [decode(1.001, "coll.enter", { group: "tp", op: "broadcast", seq: 41, digest: "77a0" }, 1)] },
    witnesses: ["d0/probe-tp0.jsonl:1 d0/probe-tp1.jsonl:1"],
    missing: { [D0]: [decode(1, "sched.iter", { iter: 7, branch: "run_batch" })] },
    names: "no coll.enter event",
  },
  "pool-sized-for-dtype": {
    holds: { [P0]: [config(0, { index_k_dtype: "bf16", index_k_bytes_per_token: 256 })] },
    violated: { [P0]: [config(0, { index_k_dtype: "bf16", index_k_bytes_per_token: 132 })] },
    witnesses: ["p0/probe-tp0.jsonl:1 -"],
    missing: { [P0]: [config(0, { index_k_dtype: "bf16" })] },
    names: "none matching",
  },
  "index-k-dtype-agrees": {
    holds: { [P0]: [config(0, { index_k_dtype: "bf16" })], [D0]: [config(0, { index_k_dtype: "bf16" }, decode)] },
    violated: { [P0]: [config(0, { index_k_dtype: "fp8" })], [D0]: [config(0.5, { index_k_dtype: "bf16" }, decode)] },
    witnesses: ["p0/probe-tp0.jsonl:1 d0/probe-tp0.jsonl:1"],
    missing: { [P0]: [config(0, { index_k_dtype: "bf16" })] },
    names: "no two config where index_k_dtype exists events share a key",
  },
  "indexer-address-fits-int32": {
    holds: { [P0]: [config(0, { max_context: 163840 })] },
    violated: { [P0]: [config(0, { max_context: 1179648 })] },
    witnesses: ["p0/probe-tp0.jsonl:1 -"],
    missing: { [P0]: [config(0, { index_k_dtype: "bf16" })] },
    names: "none matching",
  },
  "checksums-agree": {
    holds: { "p0/checksums.jsonl": [checksum(1, "prefill_store", ROOM_A, 0, "8c2c8a4ee60d9fa7")], "d0/checksums.jsonl": [checksum(2, "decode_recv", ROOM_A, 0, "8c2c8a4ee60d9fa7")] },
    violated: { "p0/checksums.jsonl": [checksum(1, "prefill_store", ROOM_A, 0, "8c2c8a4ee60d9fa7")], "d0/checksums.jsonl": [checksum(2, "decode_recv", ROOM_A, 0, "5ebf4789c0620a51")] },
    witnesses: ["p0/checksums.jsonl:1 d0/checksums.jsonl:1"],
    missing: { [D0]: [read(2, ROOM_A)] },
    names: "no checksum event",
  },
  "bootstrap-survives-abort": {
    // The probe records thread deaths (tp1's), and tp0's thread lived past its ABORT.
    holds: { [P0]: [prefill(1, "boot.msg", { room: ROOM_A, kind: "ABORT" })], "p0/probe-tp1.jsonl": [prefill(1, "boot.exit", { error: "EOFError" }, 1)] },
    violated: { [P0]: [prefill(1, "boot.msg", { room: ROOM_A, kind: "ABORT" }), prefill(1.01, "boot.exit", { error: "AssertionError: First message should be b'NixlMsgGuard'. Foreign traffic?" })] },
    witnesses: ["p0/probe-tp0.jsonl:1 p0/probe-tp0.jsonl:2"],
    missing: { [P0]: [prefill(1, "boot.msg", { room: ROOM_A, kind: "ABORT" })] },
    names: "no boot.exit event",
  },
  "bootstrap-thread-lives": {
    holds: { "p0/prefill-tp0.log": [prefillLine("14:05:23", "Prefill batch, #new-seq: 1, #new-token: 4096, #cached-token: 0, token usage: 0.03, #running-req: 0, #queue-req: 0"), ...bootstrapDeath.map((l) => l.replace("bootstrap_thread", "transfer_worker"))] },
    violated: { "p0/prefill-tp0.log": [prefillLine("14:05:23", "Prefill batch, #new-seq: 1, #new-token: 4096, #cached-token: 0, token usage: 0.03, #running-req: 0, #queue-req: 0"), ...bootstrapDeath] },
    witnesses: ["p0/prefill-tp0.log:2 -"],
    missing: { "p0/prefill-tp0.log": [prefillLine("14:05:23", "Prefill batch, #new-seq: 1, #new-token: 4096, #cached-token: 0, token usage: 0.03, #running-req: 0, #queue-req: 0")] },
    names: "no log.exception event",
  },
  "transfers-do-not-time-out": {
    // A transfer that failed for another reason is an instance that holds.
    holds: { "d0/decode-tp0.log": [decodeBatch, peerGone] },
    violated: { "d0/decode-tp0.log": [decodeBatch, peerGone, timedOut] },
    witnesses: ["d0/decode-tp0.log:3 -"],
    missing: { "d0/decode-tp0.log": [decodeBatch] },
    names: "no pd.transfer_failed event",
  },
  "transfers-not-failed-by-transport": {
    // A timeout is transfer-stall's, not a transport failure.
    holds: { "d0/decode-tp0.log": [decodeBatch, timedOut] },
    violated: { "d0/decode-tp0.log": [decodeBatch, timedOut, peerGone] },
    witnesses: ["d0/decode-tp0.log:3 -"],
    missing: { "d0/decode-tp0.log": [decodeBatch] },
    names: "no pd.transfer_failed event",
  },
  "scheduler-raises-no-exception": {
    // The bootstrap thread's death is another thread's exception: the scheduler lived.
    holds: { "p0/prefill-tp0.log": [prefillLine("14:05:23", "Prefill batch, #new-seq: 1, #new-token: 4096, #cached-token: 0, token usage: 0.03, #running-req: 0, #queue-req: 0"), ...bootstrapDeath] },
    violated: { "p0/prefill-tp0.log": [prefillLine("14:05:23", "Prefill batch, #new-seq: 1, #new-token: 4096, #cached-token: 0, token usage: 0.03, #running-req: 0, #queue-req: 0"), ...bootstrapDeath, ...schedulerOom] },
    witnesses: ["p0/prefill-tp0.log:7 -"],
    missing: { "p0/prefill-tp0.log": [prefillLine("14:05:23", "Prefill batch, #new-seq: 1, #new-token: 4096, #cached-token: 0, token usage: 0.03, #running-req: 0, #queue-req: 0")] },
    names: "no log.exception event",
  },
};

test("every named hypothesis has its three hand-written incidents", () => {
  assert.deepEqual(Object.keys(CASES).sort(), loadLibrary().map((h) => h.name).sort());
});

for (const [name, c] of Object.entries(CASES)) {
  test(`${name}: holds, is violated at the lines that break it, and is undetermined without its evidence`, async () => {
    const h = named(name);
    const [holds] = await checkFiles(c.holds, [h]);
    assert.equal(holds!.verdict, "consistent", `${name} holds: ${holds!.explanation}`);
    assert.ok(holds!.checked > 0);
    const [bad] = await checkFiles(c.violated, [h]);
    assert.equal(bad!.verdict, "violated", `${name} violated: ${bad!.explanation}`);
    assert.deepEqual(witnessPlaces(bad!), c.witnesses);
    const [absent] = await checkFiles(c.missing, [h]);
    assert.equal(absent!.verdict, "undetermined", `${name} missing: ${absent!.explanation}`);
    assert.match(absent!.missing.join("; "), new RegExp(c.names));
  });
}
