// Small incidents in real log formats shared by the rule, analyze and CLI tests.

import type { IncidentDb } from "../../store/db.js";
import { buildIncident, type SourceFile } from "./incidentBuilder.js";
import { checksum, probe, type ChecksumLine, type Rank } from "./probeLines.js";
import { abortSent, decodeBatch, decodeTimeout, gotInfo, lines, prefillBatch, prefix, sentMetadata } from "./logLines.js";

export const ABORTED = "8972542885242963296";
export const LATER = ["5830149913321", "7140283925190346112"];

// Python's default thread excepthook output (§3.3: no SGLang prefix), after
// the NIXL GUARD assertion of §7.1.
export const THREAD_DEATH = [
  "Exception in thread Thread-3 (bootstrap_thread):",
  "Traceback (most recent call last):",
  '  File "/usr/lib/python3.12/threading.py", line 1075, in _bootstrap_inner',
  "    self.run()",
  '  File "/sgl-workspace/sglang/python/sglang/srt/disaggregation/nixl/conn.py", line 1423, in bootstrap_thread',
  "    assert (",
  "AssertionError: First message should be b'NixlMsgGuard'. Foreign traffic?",
];

/** NIXL prefill whose bootstrap thread dies on an ABORT; two later rooms time out on decode. */
export function wedgeFiles(): SourceFile[] {
  const prefill = lines(
    `${prefix(0, "TP0")} NIXL KVManager initialized with backend: UCX`,
    gotInfo(5, 0, ABORTED),
    gotInfo(40, 0, "1111"),
    THREAD_DEATH,
  );
  const decode = lines(
    sentMetadata(4, 0, ABORTED),
    abortSent(39, 0, ABORTED),
    sentMetadata(41, 0, LATER[0]!),
    sentMetadata(42, 0, LATER[1]!),
    decodeTimeout(341, 0, "a1", LATER[0]!),
    decodeTimeout(342, 0, "a2", LATER[1]!),
  );
  return [
    { path: "p0/prefill-tp0.log", text: prefill },
    { path: "d0/decode-tp0.log", text: decode },
  ];
}

export function wedgedByAbort(): Promise<IncidentDb> {
  return buildIncident(wedgeFiles());
}

/** A calm PD run: queues move, every room bootstraps, nothing fails. */
export function healthyRun(): Promise<IncidentDb> {
  const rooms = ["5830149913321", "7140283925190346112", "8972542885242963296"];
  const prefill = lines(
    `${prefix(0, "TP0")} NIXL KVManager initialized with backend: UCX`,
    rooms.map((r, i) => gotInfo(2 + i, 0, r)),
    prefillBatchLines(),
  );
  const decode = lines(rooms.map((r, i) => sentMetadata(1 + i, 0, r)), decodeBatchLines());
  return buildIncident([
    { path: "p0/prefill-tp0.log", text: prefill },
    { path: "d0/decode-tp0.log", text: decode },
  ]);
}

function prefillBatchLines(): string[] {
  return [4, 2, 5, 0, 1, 3, 0].map((n, i) => prefillBatch(10 + i * 20, n));
}

function decodeBatchLines(): string[] {
  return [3, 1, 0, 2, 4, 0, 1].map((n, i) => decodeBatch(12 + i * 20, n));
}

const AB_P0: Rank = { host: "p0", role: "prefill", tp: 0 };
const AB_D0: Rank = { host: "d0", role: "decode", tp: 0 };
const RIDS = ["r-01", "r-02", "r-03", "r-04", "r-05", "r-06", "r-07", "r-08"];

/**
 * The same eight requests under one index-K dtype: each arrives, is stored
 * on prefill and received on decode (one page each, decode pages reused from
 * the request two places earlier); for the requests numbered in `staleAt` the
 * decode page still holds its previous owner's data.
 */
export function abRun(dtype: "fp8" | "bf16", roomBase: bigint, staleAt: number[]): Promise<IncidentDb> {
  const room = (i: number): string => String(roomBase + BigInt(i));
  const config = (r: Rank) => probe(0, r, "config", { backend: "nixl", version: "0.5.16", index_k_dtype: dtype, hicache: true, overlap: true, transfer_queues: 4 });
  const arrivals = RIDS.map((rid, i) => probe(1 + i, AB_D0, "req.arrive", { rid }, room(i)));
  const hash = (i: number): string => `${dtype === "fp8" ? "f8" : "bf"}${i}`.padEnd(16, "0");
  const stored: ChecksumLine[] = RIDS.map((_, i) => ({ sec: 1.5 + i, host: "p0", role: "prefill", side: "prefill_store", room: room(i), layer: 7, page: 100 + i, pos: 0, hash: hash(i) }));
  const received: ChecksumLine[] = RIDS.map((_, i) => ({
    sec: 1.8 + i, host: "d0", role: "decode", side: "decode_recv", room: room(i), layer: 7, page: 1000 + (i % 2), pos: 0,
    hash: staleAt.includes(i) ? hash(i - 2) : hash(i),
  }));
  return buildIncident([
    { path: "p0/probe-tp0.jsonl", text: lines(config(AB_P0)) },
    { path: "d0/probe-tp0.jsonl", text: lines(config(AB_D0), arrivals) },
    { path: "p0/checksums-tp0.jsonl", text: lines(stored.map(checksum)) },
    { path: "d0/checksums-tp0.jsonl", text: lines(received.map(checksum)) },
  ]);
}
