import { test } from "node:test";
import assert from "node:assert/strict";
import { diffIncidents, incidentDiffSchema } from "../../analyzer/rules/diff.js";
import { buildIncident } from "./incidentBuilder.js";
import { lines } from "./logLines.js";
import { checksum, probe, type ChecksumLine, type Rank } from "./probeLines.js";

const P0: Rank = { host: "p0", role: "prefill", tp: 0 };
const D0: Rank = { host: "d0", role: "decode", tp: 0 };
const RIDS = ["r-01", "r-02", "r-03", "r-04", "r-05", "r-06", "r-07", "r-08"];

/**
 * The same eight requests under one index-K dtype: each arrives, is stored
 * on prefill and received on decode (one page each, decode pages reused from
 * the request two places earlier); in `staleRooms` the decode page still holds
 * the previous owner's data.
 */
async function run(dtype: "fp8" | "bf16", roomBase: bigint, staleAt: number[]) {
  const room = (i: number): string => String(roomBase + BigInt(i));
  const config = (r: Rank) => probe(0, r, "config", { backend: "nixl", version: "0.5.16", index_k_dtype: dtype, hicache: true, overlap: true, transfer_queues: 4 });
  const arrivals = RIDS.map((rid, i) => probe(1 + i, D0, "req.arrive", { rid }, room(i)));
  const hash = (i: number): string => `${dtype === "fp8" ? "f8" : "bf"}${i}`.padEnd(16, "0");
  const stored: ChecksumLine[] = RIDS.map((_, i) => ({ sec: 1.5 + i, host: "p0", role: "prefill", side: "prefill_store", room: room(i), layer: 7, page: 100 + i, pos: 0, hash: hash(i) }));
  const received: ChecksumLine[] = RIDS.map((_, i) => ({
    sec: 1.8 + i, host: "d0", role: "decode", side: "decode_recv", room: room(i), layer: 7, page: 1000 + (i % 2), pos: 0,
    hash: staleAt.includes(i) ? hash(i - 2) : hash(i),
  }));
  return await buildIncident([
    { path: "p0/probe-tp0.jsonl", text: lines(config(P0)) },
    { path: "d0/probe-tp0.jsonl", text: lines(config(D0), arrivals) },
    { path: "p0/checksums-tp0.jsonl", text: lines(stored.map(checksum)) },
    { path: "d0/checksums-tp0.jsonl", text: lines(received.map(checksum)) },
  ]);
}

test("fp8 vs bf16: the dtype is the one difference, it raises the corrupted-room rate, and the diff says which causes that supports", async () => {
  const a = await run("fp8", 8972542885242963200n, []);
  const b = await run("bf16", 5830149913321000000n, [3, 6]);
  const d = incidentDiffSchema.parse(diffIncidents({ db: a, name: "fp8.db" }, { db: b, name: "bf16.db" }));
  assert.deepEqual(d.settings, [{ key: "index_k_dtype", a: "fp8", b: "bf16" }]);
  const corrupted = d.rates.find((r) => r.metric === "corrupted-rooms")!;
  assert.deepEqual([corrupted.a.count, corrupted.a.total, corrupted.b.count, corrupted.b.total], [0, 8, 2, 8]);
  assert.equal(d.conclusion, "index_k_dtype fp8 → bf16 raises corrupted-rooms from 0.0% (0/8) to 25.0% (2/8)");
  assert.deepEqual(d.alignment, { by: "rid", aligned: 8, onlyA: 0, onlyB: 0 });
  assert.equal(d.firstDivergence?.index, 3);
  assert.equal(d.firstDivergence?.a, null);
  assert.equal(d.firstDivergence?.b?.step, "corrupted");
  assert.equal(d.firstDivergence?.b?.request, "r-04 (room 5830149913321000003)");
  const effect = Object.fromEntries(d.causes.map((c) => [c.cause, c.effect]));
  assert.equal(effect["hicache-indexk-race"], "supports");
  assert.equal(effect["stale-slot-reuse"], "supports");
  assert.equal(effect["transfer-saturation"], "refutes", "bf16 did not change the timeout rate");
  assert.equal(effect["overlap-collective-desync"], "neutral");
});

test("two runs under the same settings with the same outcomes differ in nothing", async () => {
  const d = diffIncidents({ db: await run("fp8", 8972542885242963200n, []), name: "a" }, { db: await run("fp8", 7140283925190346100n, []), name: "b" });
  assert.deepEqual(d.settings, []);
  assert.equal(d.firstDivergence, null);
  assert.equal(d.conclusion, "no stated setting differs; no rate changes by 2 points or more");
  assert.ok(d.causes.every((c) => c.effect === "neutral"));
});
