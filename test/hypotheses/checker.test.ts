// The one-pass checker on event sequences: distances in time and in events,
// `after` clauses decided by the first partner or by the end, per-page
// correlation, subjects that lack a correlation field, and the blind clause.
// Events are stored events decoded by the typed layer, as the scan feeds them.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Checker } from "../../analyzer/hypotheses/checker.js";
import type { CheckedEvent } from "../../analyzer/hypotheses/fields.js";
import { decodeEvent } from "../../analyzer/events/index.js";
import type { StoredEvent } from "../../domain/event.js";
import { parseHypothesis } from "../../analyzer/hypotheses/parser.js";

const ROOM = "8972542885242963296";

/** A stored event as the store gives it back, decoded as the checker receives it. */
function ev(seq: number, ms: number, kind: string, fields: Partial<StoredEvent> = {}): CheckedEvent {
  return decodeEvent({
    seq, tsUs: 1_781_186_400_000_000 + ms * 1000, tsInferred: false, sourceId: 1, line: seq, kind, host: "d0", role: "decode", dp: 0, pp: 0, tp: 0,
    room: ROOM, rid: null, chunk: null, layer: null, pageLo: null, pageHi: null, state: null, attrs: null, text: "", ...fields,
  });
}

function run(text: string, events: CheckedEvent[], present?: Set<string>) {
  const c = new Checker(parseHypothesis(text).property, present);
  for (const e of events) c.push(e);
  return c.finish();
}

test("within a time: the last partner decides, and one too long before is a violation naming it", () => {
  const t = run("every kernel.read has kv.notify before within 100ms same room", [ev(1, 0, "kv.notify"), ev(2, 50, "kernel.read"), ev(3, 400, "kernel.read")]);
  assert.deepEqual([t.instances, t.checked, t.violated], [2, 2, 1]);
  assert.deepEqual(t.witnesses, [{ clause: 0, subject: 3, other: 1, why: "the last kv.notify before it is too far (more than 100 ms)" }]);
});

test("within events: counted in the global order", () => {
  const t = run("every kv.free has no kv.post after within 2 events same room", [ev(1, 0, "kv.free"), ev(2, 1, "log.unparsed"), ev(3, 2, "kv.post"), ev(4, 3, "kv.free"), ev(5, 4, "log.unparsed"), ev(6, 5, "log.unparsed"), ev(7, 6, "kv.post")]);
  assert.deepEqual(t.witnesses, [{ clause: 0, subject: 1, other: 3, why: "a kv.post came after it" }]);
  assert.equal(t.violated, 1);
});

test("has … after: the end of the incident decides the instances still waiting", () => {
  const t = run("every kv.post has kv.done after same room, chunk", [ev(1, 0, "kv.post", { chunk: 0 }), ev(2, 1, "kv.post", { chunk: 1 }), ev(3, 2, "kv.done", { chunk: 0 })]);
  assert.deepEqual(t.witnesses, [{ clause: 0, subject: 2, why: "no kv.done after it" }]);
});

test("same page: each page of the subject's range must meet the clause", () => {
  const store = (seq: number, lo: number, hi: number) => ev(seq, seq, "kernel.store", { pageLo: lo, pageHi: hi, attrs: { buffer: "index_k" } });
  const read = (seq: number, lo: number, hi: number) => ev(seq, seq, "kernel.read", { pageLo: lo, pageHi: hi, attrs: { buffer: "index_k" } });
  const t = run("every kernel.read has kernel.store before same page", [store(1, 0, 4), read(2, 1, 3), read(3, 2, 6)]);
  assert.deepEqual([t.checked, t.violated], [2, 1]);
  assert.equal(t.witnesses[0]!.subject, 3);
});

test("a subject without the correlation field is not checked, and says so", () => {
  const t = run("every kernel.read has kv.notify before same room", [ev(1, 0, "kv.notify"), ev(2, 1, "kernel.read", { room: null })]);
  assert.deepEqual([t.instances, t.checked, t.violated, t.clauses[0]!.uncorrelated], [1, 0, 0, 1]);
});

test("a clause whose partner kind the incident lacks is blind, not violated", () => {
  const t = run("every kernel.read has kv.notify before same room", [ev(1, 1, "kernel.read")], new Set(["kernel.read"]));
  assert.deepEqual([t.violated, t.clauses[0]!.blind], [0, "no kv.notify event in the incident"]);
  const untagged = run('every kernel.read has kv.notify where tag ~ "_aux" before same room', [ev(1, 0, "kv.notify"), ev(2, 1, "kernel.read")]);
  assert.deepEqual([untagged.violated, untagged.witnesses, untagged.clauses[0]!.blind], [0, [], "no kv.notify event carries tag"]);
});

test("agreement: a key seen on one rank only is not an instance; the first disagreement is the witness", () => {
  const enter = (seq: number, tp: number, op: string, s: number) => ev(seq, seq, "coll.enter", { tp, room: null, attrs: { group: "tp", op, seq: s, digest: op } });
  const t = run("all ranks agree on op for coll.enter same group, collSeq", [enter(1, 0, "all_reduce", 1), enter(2, 1, "all_reduce", 1), enter(3, 0, "all_reduce", 2), enter(4, 1, "broadcast", 2), enter(5, 0, "all_reduce", 3)]);
  assert.deepEqual([t.instances, t.violated], [2, 1]);
  assert.deepEqual(t.witnesses, [{ clause: 0, subject: 3, other: 4, why: "op=all_reduce here, op=broadcast there" }]);
});

/**
 * The checker as the ledger's pass runs it: each room retired once the
 * events are past its last one (store/read/roomEnds.ts finds that from the
 * blocks; here from the events), the earliest ending first.
 */
function runRetiring(text: string, events: CheckedEvent[]) {
  const lastOf = new Map<string, number>();
  for (const e of events) {
    const room = (e as { room?: string }).room;
    if (room) lastOf.set(room, e.seq);
  }
  const tracked = new Set<string>();
  const c = new Checker(parseHypothesis(text).property, undefined, { track: (room) => void tracked.add(room) });
  let retired = 0;
  for (const e of events) {
    const passed = [...tracked].filter((room) => lastOf.get(room)! < e.seq).sort((a, b) => lastOf.get(a)! - lastOf.get(b)!);
    for (const room of passed) {
      tracked.delete(room);
      c.retire(room);
      retired++;
    }
    c.push(e);
  }
  return { tally: c.finish(), retired };
}

/** Events placed by position, numbered in that order (rooms overlap: a few are in flight at once). */
function numbered(placed: { at: number; make: (seq: number) => CheckedEvent }[]): CheckedEvent[] {
  return placed.sort((a, b) => a.at - b.at).map((p, i) => p.make(i + 1));
}

test("rooms retired as the scan passes them: an `after` clause's tally and first witnesses as if every instance waited to the end", () => {
  const placed: { at: number; make: (seq: number) => CheckedEvent }[] = [];
  const pages = (lo: number, hi: number) => ({ pageLo: lo, pageHi: hi });
  for (let i = 0; i < 120; i++) {
    const room = `room-${i}`;
    const at = i * 10;
    placed.push({ at, make: (seq) => ev(seq, seq, "kv.free", { room, ...pages(i % 3, (i % 3) + 2) }) });
    // Both pages partnered, one page only (the other waits to the end), too far, or none.
    if (i % 4 === 0) placed.push({ at: at + 1, make: (seq) => ev(seq, seq, "kv.post", { room, ...pages(i % 3, (i % 3) + 2) }) });
    if (i % 4 === 1) placed.push({ at: at + 2, make: (seq) => ev(seq, seq, "kv.post", { room, ...pages(i % 3, (i % 3) + 1) }) });
    if (i % 4 === 2) placed.push({ at: at + 35, make: (seq) => ev(seq, seq, "kv.post", { room, ...pages(i % 3, (i % 3) + 2) }) });
    if (i % 5 === 0) placed.push({ at: at + 3, make: (seq) => ev(seq, seq, "kv.free", { room, ...pages(i % 3, (i % 3) + 1) }) });
  }
  // Keys that began to wait early or late in a room open to the last event, and in one that ends after the rooms begun after it:
  // the end meets every unpartnered instance in the order its key began to wait all the same.
  const free = (room: string, at: number, page: number) => placed.push({ at, make: (seq) => ev(seq, seq, "kv.free", { room, ...pages(page, page + 1) }) });
  const close = (room: string, at: number) => placed.push({ at, make: (seq) => ev(seq, seq, "kv.poll", { room }) });
  free("open-to-the-end", -1, 0);
  free("open-to-the-end", 500, 1);
  close("open-to-the-end", 2000);
  free("ends-late", 5, 0);
  close("ends-late", 300);
  const events = numbered(placed);
  const text = "every kv.free has kv.post after within 3 events same room, page";
  const { tally, retired } = runRetiring(text, events);
  assert.ok(retired > 100);
  assert.ok(tally.violated > 50);
  assert.deepEqual(tally, run(text, events));
  const none = "every kv.free has no kv.post after same room, page";
  assert.deepEqual(runRetiring(none, events).tally, run(none, events));
});

test("rooms retired as the scan passes them: `before` clauses and agreements decide as they would keeping every key", () => {
  const placed: { at: number; make: (seq: number) => CheckedEvent }[] = [];
  for (let i = 0; i < 80; i++) {
    const room = `room-${i}`;
    const sum = (tp: number, hash: string) => (seq: number) => ev(seq, seq, "checksum", { room, tp, attrs: { side: tp === 0 ? "prefill_store" : "decode_recv", buffer: "index_k", layer: 0, pos: 0, hash } });
    placed.push({ at: i * 10, make: sum(0, "aa") }, { at: i * 10 + 6, make: sum(1, i % 3 === 0 ? "bb" : "aa") });
    if (i % 2 === 0) placed.push({ at: i * 10 + 2, make: (seq) => ev(seq, seq, "kv.notify", { room }) });
    placed.push({ at: i * 10 + 4, make: (seq) => ev(seq, seq, "kernel.read", { room }) });
  }
  const events = numbered(placed);
  for (const text of ["all ranks agree on hash for checksum same room, buffer, layer, pos", "every kernel.read has kv.notify before same room"]) {
    const { tally, retired } = runRetiring(text, events);
    assert.ok(retired >= 40 && tally.violated > 20, `${text}: ${retired} retired, ${tally.violated} violated`);
    assert.deepEqual(tally, run(text, events), text);
  }
});
