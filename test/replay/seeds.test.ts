// Replaying a small hand-written incident of each seed class (DESIGN.md) yields
// the raw violation the reference predicts, at the event (file:line) chosen by
// hand, and stateAt shows the states the reference predicts around it.

import { test } from "node:test";
import assert from "node:assert/strict";
import { replayIncident } from "../../analyzer/replay/replay.js";
import { stateAt } from "../../analyzer/replay/timeTravel.js";
import { lastWriteBefore } from "../../analyzer/replay/pageHistory.js";
import { KVPoll } from "../../domain/vocabulary.js";
import { at, ingestCase, seqOf } from "./incidents.js";

const R = "8972542885242963296";

test("seed 2, NIXL mass-abort wedge from logs alone: ABORT kills the 0.5.14-era bootstrap thread", async () => {
  const { db } = await ingestCase("nixl-abort-wedge");
  const C = "5830149913321004417";
  const abortSent = seqOf(db, "decode-0/decode-tp3.log", 2);
  const threadDeath = seqOf(db, "prefill-0/prefill-tp3.log", 11);

  const run = replayIncident(db);
  // §7.1: v0.5.13–0.5.15 NIXL prefill has no ABORT handler; the logs date the run to that band.
  assert.equal(run.choice.profile.backend, "nixl");
  assert.equal(run.choice.profile.abortHandling, "fatal-assert");
  const unhandled = run.violations.filter((v) => v.check === "unhandled-abort");
  // One death per thread, at the logged end (reported at the end: a traceback has no time of its own),
  // naming the ABORT decode sent to that rank.
  assert.deepEqual(unhandled.map((v) => [v.seq, v.room ?? null, v.rank, v.detail.basis]), [[threadDeath, C, "prefill/tp3", "log"]]);
  assert.deepEqual(unhandled[0]!.witness.map(at), ["decode-0/decode-tp3.log:2", "prefill-0/prefill-tp3.log:11"]);
  assert.match(unhandled[0]!.witness[0]!.text, /Sent abort notification for room 5830149913321004417/);
  assert.match(unhandled[0]!.witness.at(-1)!.text, /AssertionError: First message should be b'NixlMsgGuard'/);

  const before = stateAt(db, { seq: abortSent - 1 });
  assert.deepEqual(before.bootstrapThreads.map((t) => [t.rank, t.alive]), [["prefill/tp3", true]]);
  const roomBefore = before.rooms.find((r) => r.room === C)!;
  assert.equal(roomBefore.prefill.state, KVPoll.WaitingForInput);
  assert.equal(
    roomBefore.prefill.changedAt,
    seqOf(db, "prefill-0/prefill-tp3.log", 8),
    "`got info … required_dst_info_num=1`: all destinations' metadata is in (§5.1)",
  );

  const after = stateAt(db, { seq: abortSent });
  assert.deepEqual(after.bootstrapThreads.map((t) => [t.rank, t.alive, t.changedAt]), [["prefill/tp3", false, abortSent]]);
  const roomAfter = after.rooms.find((r) => r.room === C)!;
  assert.equal(roomAfter.decode.state, KVPoll.Failed, "kv_receiver.abort() sets Failed (§8 Abort)");
  assert.equal(roomAfter.prefill.state, KVPoll.WaitingForInput, "the thread died at the assertion, before marking the room Failed");
  db.close();
});

test("a healthy NIXL transfer: no violation; KVPoll on each side before and after each step (§5.1, §5.2)", async () => {
  const { db } = await ingestCase("healthy-transfer");
  const dec = (line: number): number => seqOf(db, "d0/decode-probe.jsonl", line);
  const pre = (line: number): number => seqOf(db, "p0/prefill-probe.jsonl", line);
  const run = replayIncident(db);
  assert.deepEqual(run.violations, []);
  const cov = Object.fromEntries(run.coverage.map((c) => [c.check, c]));
  assert.ok(cov["read-before-landed-write"]!.checked > 0);
  assert.match(cov["collective-divergence"]!.undetermined ?? "", /coll\.enter/, "no collective records: undetermined, not passed");

  const room = (seq: number) => stateAt(db, { seq }, { room: R }).rooms[0]!;
  assert.equal(room(dec(3)).decode.state, KVPoll.WaitingForInput, "metadata sent: WaitingForInput");
  assert.equal(room(pre(3)).prefill.state, KVPoll.WaitingForInput, "the decode destination's metadata arrived");
  assert.equal(room(pre(4)).prefill.state, KVPoll.Transferring, "a worker picked up chunk 0");
  assert.equal(room(dec(5) - 1).decode.state, KVPoll.WaitingForInput, "before the last chunk's notification");
  assert.equal(room(dec(7)).decode.state, KVPoll.Success, "poll() after every chunk and the aux");
  assert.equal(room(pre(7)).prefill.state, KVPoll.Success, "the last chunk's transfer is done");

  const pages = stateAt(db, { seq: dec(2) }).pages.filter((p) => p.rank === "decode/tp0" && p.buffer === "kv");
  assert.deepEqual(pages.map((p) => [p.page, p.ownerRoom]), [16, 17, 18, 19].map((p) => [p, R]));
  db.close();
});

test("seed 4: a page freed on timeout while the old room's write is in flight, reused and read", async () => {
  const { db } = await ingestCase("stale-slot-reuse");
  const NEW = "8972542885242963297";
  const read = seqOf(db, "d0/decode-probe.jsonl", 6);
  const run = replayIncident(db);
  const stale = run.violations.filter((v) => v.check === "stale-slot-reuse");
  assert.equal(stale.length, 1);
  assert.equal(stale[0]!.seq, read);
  assert.equal(stale[0]!.room, NEW);
  assert.equal(stale[0]!.rank, "decode/tp3");
  assert.deepEqual(stale[0]!.witness.map(at), [
    "d0/decode-probe.jsonl:3", // the free
    "p0/prefill-probe.jsonl:2", // the old room's write, posted before it
    "d0/decode-probe.jsonl:4", // the new owner's allocation
    "d0/decode-probe.jsonl:6", // the read
  ]);
  const stall = run.violations.filter((v) => v.check === "transfer-stall");
  assert.deepEqual(stall.map((v) => [v.room, v.seq]), [[R, seqOf(db, "d0/decode-tp3.log", 2)]]);

  const last = lastWriteBefore(db, read)!;
  assert.equal(at(last.read), "d0/decode-probe.jsonl:6");
  assert.deepEqual(
    last.pages.map((p) => [p.page, p.buffer, p.ownerRoom, p.writer?.room, p.writer?.chunk, p.write && at(p.write), p.landed, p.landing]),
    [8, 9].map((page) => [page, "index_k", NEW, R, 0, "p0/prefill-probe.jsonl:2", false, null]),
  );
  db.close();
});

test("seed 3: a ragged index-K read of a layer HiCache is still loading (before #22811)", async () => {
  const { db } = await ingestCase("hicache-race");
  const read = seqOf(db, "p0/prefill-probe.jsonl", 13);
  const run = replayIncident(db);
  assert.deepEqual(
    run.violations.map((v) => [v.check, v.seq, v.rank, v.room]),
    [["hicache-ungated-read", read, "prefill/tp2", R]],
  );
  assert.deepEqual(run.violations[0]!.witness.map(at).at(-1), "p0/prefill-probe.jsonl:13");
  const slots = (seq: number) => stateAt(db, { seq }).hicacheSlots.map((s) => [s.rank, s.slot, s.layersDone, s.layers]);
  assert.deepEqual(slots(read - 1), [["prefill/tp2", 0, 10, 61]]);
  assert.deepEqual(slots(seqOf(db, "p0/prefill-probe.jsonl", 64)), [["prefill/tp2", 0, 61, 61]]);
  db.close();
});

test("seed 1: under the overlap schedule one rank idles while three wait in the next collective", async () => {
  const { db } = await ingestCase("overlap-desync");
  const line = (n: number): string => `d0/decode-probe.jsonl:${n}`;
  const run = replayIncident(db);
  const div = run.violations.filter((v) => v.check === "collective-divergence");
  assert.equal(div.length, 1);
  assert.equal(div[0]!.rank, "decode/tp3");
  assert.deepEqual(div[0]!.witness.map(at), [line(11), line(13), line(15), line(9), line(16)]);
  const end = stateAt(db, { seq: seqOf(db, "d0/decode-tp0.log", 2) });
  assert.deepEqual(
    end.collectives.map((c) => [c.rank, c.seq, c.inside]),
    [
      ["decode/tp0", 1, true],
      ["decode/tp1", 1, true],
      ["decode/tp2", 1, true],
      ["decode/tp3", 0, false],
    ],
  );
  db.close();
});

test("seeds 5 and 7: index-K pool sized for fp8 on a bf16 buffer, mixed dtypes, a 1.1M context", async () => {
  const { db } = await ingestCase("pool-sizing");
  const decodeConfig = seqOf(db, "d0/decode-probe.jsonl", 1);
  const run = replayIncident(db);
  const at1 = run.violations.filter((v) => v.seq === decodeConfig);
  // §2.3: 132 B/token vs bf16's 256; host stride 8,448 vs the bf16 device page 16,384; §2.4: one item_len for 132- and 256-byte rows.
  assert.deepEqual(
    at1.filter((v) => v.check === "pool-sizing-mismatch").map((v) => v.detail.kind).sort(),
    ["bytes-per-token", "host-page-stride", "item-len"],
  );
  const overflow = run.violations.filter((v) => v.check === "address-overflow");
  assert.deepEqual(
    overflow.map((v) => v.detail.maxContext),
    [1_100_000],
    "b * max_seq_len + t passes int32 above ~1M context",
  );
  assert.deepEqual(run.choice.profile.indexKDtype, "fp8");
  assert.ok(run.choice.conflicts.some((c) => c.startsWith("index_k_dtype:") && c.includes("bf16")));
  db.close();
});
