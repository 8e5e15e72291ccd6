// The model applies observed events as facts even when the steps before them
// are missing (DESIGN.md "The reference model"): a post with no bootstrap
// record, a free with no allocation, a read of pages no allocation gave out.
// stale-slot-reuse is decided by its outcome (another room's data on the page
// the reader owns), however that data got there; what the model had to
// assume is recorded on the room and on the violation.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createModel, defaultProfile, type Violation } from "../../analyzer/model/index.js";
import { Stream } from "./stream.js";

const PROFILE = defaultProfile({ backend: "nixl", version: "0.5.16" });
const D = { role: "decode" as const, host: "d0", tp: 0 };
const P = { role: "prefill" as const, host: "p0", tp: 0 };
const OLD = "8972542885242963296";
const NEW = "8972542885242963297";
const PAGES: [number, number][] = [[40, 44]];

function replay(s: Stream): { violations: Violation[]; model: ReturnType<typeof createModel> } {
  const model = createModel(PROFILE);
  const violations = s.events.flatMap((e) => model.apply(e));
  violations.push(...model.finish(s.events.at(-1)!.tsUs));
  return { violations, model };
}

function stale(vs: Violation[]): Violation[] {
  return vs.filter((v) => v.check === "stale-slot-reuse");
}

test("a write posted 300 s late, after the free and the reallocation, with no bootstrap and no dst_pages, lands on the new room's pages", () => {
  const s = new Stream();
  s.add("kv.alloc", { ...D, room: OLD, pages: PAGES, at: 100 });
  const free = s.add("kv.free", { ...D, room: OLD, pages: PAGES, at: 400.1 });
  const alloc = s.add("kv.alloc", { ...D, room: NEW, pages: PAGES, at: 400.3 });
  s.add("kv.meta", { ...D, room: NEW, pages: PAGES, at: 400.31 });
  s.add("kv.post", { ...P, room: NEW, chunk: 0, pages: [[112, 116]], attrs: { last: true, queue: 0 }, at: 400.9 });
  s.add("kv.done", { ...P, room: NEW, chunk: 0, at: 401.1 });
  const post = s.add("kv.post", { ...P, room: OLD, chunk: 0, pages: [[8, 12]], attrs: { last: true, queue: 1 }, at: 401.48 });
  const land = s.add("kv.done", { ...P, room: OLD, chunk: 0, at: 401.69 });
  const read = s.add("kernel.read", { ...D, room: NEW, layer: 0, pages: PAGES, attrs: { buffer: "kv" }, at: 401.72 });
  const { violations, model } = replay(s);
  const [v] = stale(violations);
  assert.ok(v, "stale-slot-reuse found by its outcome");
  assert.equal(v.room, NEW, "the reader room");
  assert.equal(v.detail.previousRoom, OLD, "the writer room");
  assert.equal(v.detail.mechanism, "posted-after-free");
  assert.equal(v.detail.page, 40);
  assert.deepEqual(v.witness, [free.seq, post.seq, alloc.seq, land.seq, read.seq], "the free between them, the write, the reallocation, the landing, the read");
  const assumptions = v.detail.assumptions as string[];
  assert.ok(assumptions.some((a) => a.startsWith(`room ${OLD}: prefill transferred the room without a bootstrap record`)), assumptions.join("; "));
  assert.ok(assumptions.some((a) => a.startsWith(`room ${OLD}: a transfer was posted after decode freed the room's pages`)));
  assert.equal(violations.filter((x) => x.check === "read-before-landed-write").length, 0, "nothing was in flight at the read");
  const page = model.view().pages.find((p) => p.page === 40 && p.buffer === "kv")!;
  assert.equal(page.ownerRoom, NEW);
  assert.equal(page.lastWriter?.room, OLD);
});

test("a room's pages known only from its free still take its late write; the room says what was assumed", () => {
  const s = new Stream();
  s.add("pd.transfer_failed", {
    ...D,
    room: OLD,
    attrs: { reasonKind: "timeout", timeoutState: "WaitingForInput", timeoutS: 300 },
    text: `Decode transfer failed for request rank=0 decode_req.req.rid='a1' decode_req.req.bootstrap_room=${OLD} with exception KVTransferError(bootstrap_room=${OLD}): Request ${OLD} timed out after 300.0s in KVPoll.WaitingForInput`,
    at: 400.05,
  });
  s.add("kv.free", { ...D, room: OLD, pages: PAGES, at: 400.1 });
  s.add("kv.alloc", { ...D, room: NEW, pages: PAGES, at: 400.3 });
  s.add("kv.post", { ...P, room: OLD, chunk: 0, pages: [[8, 12]], attrs: { last: true, queue: 1 }, at: 401.4 });
  s.add("kv.done", { ...P, room: OLD, chunk: 0, at: 401.6 });
  s.add("kernel.read", { ...D, room: NEW, layer: 0, pages: [[41, 42]], attrs: { buffer: "kv" }, at: 401.7 });
  const { violations, model } = replay(s);
  const [v] = stale(violations);
  assert.equal(v?.detail.mechanism, "posted-after-free");
  assert.ok((v!.detail.assumptions as string[]).some((a) => a.includes("known only from its kv.free")));
  const old = model.view({ room: OLD }).rooms[0]!;
  assert.ok(old.assumed?.some((a) => a.includes("known only from its kv.free")), JSON.stringify(old.assumed));
});

test("a write posted after the free that lands before the reallocation is read by the next owner as stale data", () => {
  const s = new Stream();
  s.add("kv.alloc", { ...D, room: OLD, pages: PAGES, at: 1 });
  s.add("kv.free", { ...D, room: OLD, pages: PAGES, at: 301 });
  s.add("kv.post", { ...P, room: OLD, chunk: 0, pages: [[8, 12]], attrs: { last: true }, at: 302 });
  s.add("kv.done", { ...P, room: OLD, chunk: 0, at: 302.2 });
  s.add("kv.alloc", { ...D, room: NEW, pages: PAGES, at: 303 });
  s.add("kernel.read", { ...D, room: NEW, layer: 0, pages: PAGES, attrs: { buffer: "kv" }, at: 303.5 });
  const [v] = stale(replay(s).violations);
  assert.equal(v?.detail.mechanism, "posted-after-free");
  assert.equal(v?.room, NEW);
});

test("the old write landing after the reallocation, before the new owner's own write lands, is stale data while the own write is in flight", () => {
  const s = new Stream();
  s.add("kv.alloc", { ...D, room: OLD, pages: PAGES, at: 1 });
  s.add("kv.meta", { ...D, room: OLD, pages: PAGES, at: 1.1 });
  s.add("kv.post", { ...P, room: OLD, chunk: 0, pages: [[8, 12]], attrs: { last: true }, at: 2 });
  s.add("kv.free", { ...D, room: OLD, pages: PAGES, at: 301 });
  s.add("kv.alloc", { ...D, room: NEW, pages: PAGES, at: 302 });
  s.add("kv.meta", { ...D, room: NEW, pages: PAGES, at: 302.1 });
  s.add("kv.done", { ...P, room: OLD, chunk: 0, at: 302.2 });
  s.add("kv.post", { ...P, room: NEW, chunk: 0, pages: [[20, 24]], attrs: { last: true }, at: 302.3 });
  s.add("kernel.read", { ...D, room: NEW, layer: 0, pages: PAGES, attrs: { buffer: "kv" }, at: 302.4 });
  const { violations } = replay(s);
  const [v] = stale(violations);
  assert.equal(v?.detail.mechanism, "landed-after-reuse");
  assert.equal(v?.detail.previousRoom, OLD);
  const own = violations.filter((x) => x.check === "read-before-landed-write");
  assert.deepEqual(own.map((x) => [x.room, x.detail.writerRoom]), [[NEW, NEW]], "its own write was still in flight: the in-flight case");
});

test("an old write still in flight at the read is both stale-slot-reuse and, derived by the rule, read-before-landed-write", () => {
  const s = new Stream();
  s.add("kv.alloc", { ...D, room: OLD, pages: PAGES, at: 1 });
  s.add("kv.meta", { ...D, room: OLD, pages: PAGES, at: 1.1 });
  s.add("kv.post", { ...P, room: OLD, chunk: 0, pages: [[8, 12]], attrs: { last: true }, at: 2 });
  s.add("kv.free", { ...D, room: OLD, pages: PAGES, at: 301 });
  s.add("kv.alloc", { ...D, room: NEW, pages: PAGES, at: 302 });
  s.add("kernel.read", { ...D, room: NEW, layer: 0, pages: PAGES, attrs: { buffer: "kv" }, at: 302.4 });
  const [v] = stale(replay(s).violations);
  assert.equal(v?.detail.mechanism, "in-flight");
  assert.equal(v?.detail.land, null);
});

test("a read of pages no allocation gave out takes them as the reader's, and says so", () => {
  const s = new Stream();
  s.add("kv.post", { ...P, room: OLD, chunk: 0, pages: [[8, 12]], attrs: { last: true, dst_pages: PAGES }, at: 1 });
  s.add("kv.done", { ...P, room: OLD, chunk: 0, at: 1.2 });
  s.add("kernel.read", { ...D, room: NEW, layer: 0, pages: PAGES, attrs: { buffer: "kv" }, at: 2 });
  const { violations, model } = replay(s);
  assert.deepEqual(stale(violations), [], "a write onto pages nobody was seen to own is no proof of reuse");
  assert.deepEqual(model.view({ room: NEW }).rooms.map((r) => r.room), []);
});

test("a healthy room reading its own landed data is not stale", () => {
  const s = new Stream();
  s.add("kv.alloc", { ...D, room: NEW, pages: PAGES, at: 1 });
  s.add("kv.meta", { ...D, room: NEW, pages: PAGES, at: 1.1 });
  s.add("kv.post", { ...P, room: NEW, chunk: 0, pages: [[8, 12]], attrs: { last: true }, at: 2 });
  s.add("kv.done", { ...P, room: NEW, chunk: 0, at: 2.1 });
  s.add("kernel.read", { ...D, room: NEW, layer: 0, pages: PAGES, attrs: { buffer: "kv" }, at: 2.2 });
  assert.deepEqual(replay(s).violations.filter((v) => v.check === "stale-slot-reuse" || v.check === "read-before-landed-write"), []);
});

test("a notification with no post of its own is a landing all the same: the reader's own data is not another room's", () => {
  const s = new Stream();
  s.add("kv.alloc", { ...D, room: OLD, pages: PAGES, at: 1 });
  s.add("kv.meta", { ...D, room: OLD, pages: PAGES, at: 1.1 });
  s.add("kv.post", { ...P, room: OLD, chunk: 0, pages: [[8, 12]], attrs: { last: true }, at: 2 });
  s.add("kv.free", { ...D, room: OLD, pages: PAGES, at: 301 });
  s.add("kv.alloc", { ...D, room: NEW, pages: PAGES, at: 302 });
  s.add("kv.meta", { ...D, room: NEW, pages: PAGES, at: 302.1 });
  s.add("kv.done", { ...P, room: OLD, chunk: 0, at: 302.2 });
  const stale = s.add("kernel.read", { ...D, room: NEW, layer: 0, pages: [[40, 41]], attrs: { buffer: "kv" }, at: 302.25 });
  s.add("kv.notify", { ...D, room: NEW, attrs: { tag: `${NEW}_kv_0_1_0` }, at: 302.3 });
  s.add("kernel.read", { ...D, room: NEW, layer: 0, pages: [[41, 44]], attrs: { buffer: "kv" }, at: 302.4 });
  const { violations, model } = replay(s);
  assert.deepEqual(violations.filter((v) => v.check === "stale-slot-reuse").map((v) => v.seq), [stale.seq], "only the read before its own data landed");
  const page = model.view().pages.find((p) => p.page === 42 && p.buffer === "kv")!;
  assert.equal(page.lastWriter?.room, NEW);
});

test("NIXL's `Request {room} waiting_timeout` line times the room out on that decode rank", () => {
  const s = new Stream();
  s.add("kv.meta", { ...D, room: NEW, pages: PAGES, at: 1 });
  const line = s.add("pd.room_timeout", { ...D, room: NEW, state: 0, attrs: { timeoutState: "WaitingForInput", failureClass: "timeout" }, text: `Request ${NEW} waiting_timeout`, at: 301 });
  const { violations, model } = replay(s);
  const [stall] = violations.filter((v) => v.check === "transfer-stall");
  assert.equal(stall?.seq, line.seq);
  assert.equal(stall?.detail.basis, "log");
  assert.equal(model.view({ room: NEW }).rooms[0]!.decode.state, 0, "KVPoll.Failed");
});
