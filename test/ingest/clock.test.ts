import { test } from "node:test";
import assert from "node:assert/strict";
import { alignClocks, anchorsOf, AnchorTable } from "../../ingest/sources/clock.js";
import type { ParsedEvent } from "../../domain/event.js";

function ev(kind: string, fields: Partial<ParsedEvent> = {}): ParsedEvent {
  return { tsUs: 0, line: 1, kind, text: "", ...fields };
}

test("the causal pairs each event kind takes part in", () => {
  const room = "8972542885242963296";
  assert.deepEqual(anchorsOf(ev("kv.post", { room, chunk: 2 })), [
    { key: `x:${room}`, rel: "earliest", side: "before" },
    { key: `m:${room}`, rel: "earliest", side: "after" },
  ]);
  assert.deepEqual(anchorsOf(ev("xfer.notif_sent", { room, attrs: { tag: `${room}_kv_2_1_3` } })), [{ key: `x:${room}`, rel: "earliest", side: "before" }]);
  // The room of a probe notification is its tag's, decoded when the record was read (ingest/formats/notifFields.ts).
  assert.deepEqual(anchorsOf(ev("kv.notify", { room, attrs: { tag: `${room}_aux`, tagKind: "aux" } })), [{ key: `x:${room}`, rel: "earliest", side: "after" }]);
  assert.deepEqual(anchorsOf(ev("boot.metadata_sent", { room })), [{ key: `m:${room}`, rel: "earliest", side: "before" }]);
  assert.deepEqual(anchorsOf(ev("boot.got_info", { room })), [{ key: `m:${room}`, rel: "earliest", side: "after" }]);
  assert.deepEqual(anchorsOf(ev("abort.sent", { room })), [{ key: `a:${room}`, rel: "earliest", side: "before" }]);
  assert.deepEqual(anchorsOf(ev("abort.sent", { room, attrs: { failed: true } })), []);
  assert.deepEqual(anchorsOf(ev("boot.msg", { room, attrs: { kind: "ABORT" } })), [{ key: `a:${room}`, rel: "earliest", side: "after" }]);
  assert.deepEqual(anchorsOf(ev("abort.ack_sent", { room })), [{ key: `k:${room}`, rel: "earliest", side: "before" }]);
  assert.deepEqual(anchorsOf(ev("coll.exit", { attrs: { group: "tp", seq: 17 } })), [{ key: "c:tp:17", rel: "all", side: "after" }]);
  // A read is what the analyzer judges; it never bounds the clocks.
  assert.deepEqual(anchorsOf(ev("kernel.read", { room })), []);
});

test("the smallest corrections that satisfy every bound: a host moves earlier just enough", () => {
  // d0's clock reads 40 ms behind p0's. Transfers p0 -> d0 seen 38 ms apart at the least give
  // o[p0] - o[d0] <= -38 ms; metadata d0 -> p0 seen 42 ms apart gives o[d0] - o[p0] <= 42 ms.
  const a = alignClocks(["p0", "d0"], [
    { from: "p0", to: "d0", c: -38_000, n: 10 },
    { from: "d0", to: "p0", c: 42_000, n: 4 },
  ]);
  assert.deepEqual(a.offsetsUs, { d0: 0, p0: -38_000 });
  assert.equal(a.consistent, true);
  assert.deepEqual(a.pairs, [{ a: "d0", b: "p0", lo: 38_000, hi: 42_000, constraints: 14 }]);
});

test("bounds already met leave the clocks alone; a one-sided bound moves a clock only as far as it demands", () => {
  const met = alignClocks(["p0", "d0"], [
    { from: "p0", to: "d0", c: 800, n: 3 },
    { from: "d0", to: "p0", c: 2_500, n: 3 },
  ]);
  assert.deepEqual(met.offsetsUs, { d0: 0, p0: 0 });
  const violated = alignClocks(["p0", "d0"], [{ from: "p0", to: "d0", c: -5_000, n: 3 }]);
  assert.deepEqual(violated.offsetsUs, { d0: 0, p0: -5_000 });
});

test("corrections propagate through a host in the middle; unconnected hosts stay at zero", () => {
  const a = alignClocks(["a", "b", "c", "lonely"], [
    { from: "a", to: "b", c: 1_000, n: 1 },
    { from: "b", to: "a", c: 1_000, n: 1 },
    { from: "b", to: "c", c: -9_000, n: 1 },
    { from: "c", to: "b", c: 11_000, n: 1 },
  ]);
  // b must be at least 9 ms earlier than c; a within 1 ms of b, so a moves too.
  assert.deepEqual(a.offsetsUs, { a: -8_000, b: -9_000, c: 0, lonely: 0 });
  assert.equal(a.consistent, true);
});

test("contradictory bounds are reported, not looped on", () => {
  const a = alignClocks(["a", "b"], [
    { from: "a", to: "b", c: -1_000, n: 1 },
    { from: "b", to: "a", c: -1_000, n: 1 },
  ]);
  assert.equal(a.consistent, false);
});

test("the anchor table keeps per key and host the earliest and latest befores and the earliest after", () => {
  const t = new AnchorTable();
  t.add({ key: "x:1", rel: "earliest", side: "before" }, "p0", 500);
  t.add({ key: "x:1", rel: "earliest", side: "before" }, "p0", 300);
  t.add({ key: "x:1", rel: "earliest", side: "after" }, "d0", 900);
  t.add({ key: "x:1", rel: "earliest", side: "after" }, "d0", 700);
  assert.equal(t.size, 1);
  assert.deepEqual(t.drain(), [
    { key: "x:1", rel: "earliest", domain: "p0", minBefore: 300, maxBefore: 500, minAfter: null },
    { key: "x:1", rel: "earliest", domain: "d0", minBefore: null, maxBefore: null, minAfter: 700 },
  ]);
  assert.equal(t.size, 0);
});
