// The bootstrap thread and the abort paths per backend and version
// (docs/protocol.md §7.1, §7.2; DESIGN.md seed case 2).

import { test } from "node:test";
import assert from "node:assert/strict";
import { BootstrapThread, createModel, defaultProfile, type ReplayModel, type Violation } from "../../analyzer/model/index.js";
import { KVPoll } from "../../domain/vocabulary.js";
import { Stream, T0_US } from "./stream.js";

const A = "8972542885242963296";
const B = "5830149913321";

function run(model: ReplayModel, s: Stream): Violation[] {
  return s.events.flatMap((e) => model.apply(e));
}

test("the bootstrap thread: NIXL 0.5.13–0.5.15 dies on ABORT, 0.5.16 marks Failed without ACK, Mooncake acks", () => {
  const t14 = new BootstrapThread(0);
  assert.deepEqual(t14.take("nixl", "fatal-assert", "ABORT", 5), { handled: false, died: true, roomFailed: false, ack: false });
  assert.equal(t14.alive, false);
  assert.deepEqual(t14.take("nixl", "fatal-assert", "meta", 6).handled, false, "a dead thread takes nothing");
  const t16 = new BootstrapThread(0);
  assert.deepEqual(t16.take("nixl", "failed-no-ack", "ABORT", 5), { handled: true, died: false, roomFailed: true, ack: false });
  const mc = new BootstrapThread(0);
  assert.deepEqual(mc.take("mooncake", "failed-ack", "ABORT", 5), { handled: true, died: false, roomFailed: true, ack: true });
  assert.equal(new BootstrapThread(0).take("nixl", "failed-no-ack", "foreign", 1).died, true, "foreign frames fail GUARD in every NIXL version");
});

function abortThenLaterRoom(version: string, threadException: boolean): { model: ReplayModel; s: Stream; found: Violation[] } {
  const model = createModel(defaultProfile({ backend: "nixl", version }));
  const s = new Stream();
  s.add("boot.got_info", { role: "prefill", host: "p0", room: A, attrs: { required_dst_info_num: 1 }, text: `got info room=${A} agent_name='decode_0' required_dst_info_num=1`, at: 1 });
  s.add("kv.meta", { role: "decode", host: "d0", room: A, pages: [[8, 10]], at: 1.1 });
  s.add("abort.sent", { role: "decode", host: "d0", room: A, text: `Sent abort notification for room ${A} to 10.0.0.1:17001`, at: 2 });
  if (threadException) s.add("log.exception", {
    role: "prefill",
    host: "p0",
    attrs: { thread: "Thread-3 (bootstrap_thread)" },
    text: "Exception in thread Thread-3 (bootstrap_thread):\nTraceback (most recent call last):\nAssertionError: First message should be b'NixlMsgGuard'. Foreign traffic?",
    at: 2.001,
  });
  s.add("req.arrive", { role: "prefill", host: "p0", room: B, rid: "r-b", at: 10 });
  s.add("kv.meta", { role: "decode", host: "d0", room: B, pages: [[20, 22]], at: 10.2 });
  s.add("pd.transfer_failed", {
    role: "decode",
    host: "d0",
    room: B,
    rid: "r-b",
    attrs: { reasonKind: "timeout", timeoutState: "WaitingForInput" },
    text: `Decode transfer failed for request rank=0 decode_req.req.rid='r-b' decode_req.req.bootstrap_room=${B} with exception KVTransferError(bootstrap_room=${B}): Request ${B} timed out after 300.0s in KVPoll.WaitingForInput`,
    at: 310.2,
  });
  return { model, s, found: run(model, s) };
}

test("0.5.14 NIXL: ABORT kills the prefill bootstrap thread, and a later room on that rank stays stuck until decode times out", () => {
  const { model, s, found } = abortThenLaterRoom("0.5.14", true);
  const [abortSent, exception, , metaB, timeoutB] = [s.events[2]!, s.events[3]!, s.events[4]!, s.events[5]!, s.events[6]!];
  const unhandled = found.filter((v) => v.check === "unhandled-abort");
  assert.equal(unhandled.length, 1, "one death, reported once");
  assert.equal(unhandled[0]!.seq, exception.seq, "at the logged exception, which confirms the modelled death");
  assert.deepEqual(unhandled[0]!.witness, [abortSent.seq, exception.seq]);
  assert.equal(unhandled[0]!.rank, "prefill/tp0");
  assert.equal(unhandled[0]!.room, A, "the ABORT decode sent to that rank");
  assert.deepEqual([unhandled[0]!.detail.basis, unhandled[0]!.detail.confirms, unhandled[0]!.detail.abortHow], ["log", abortSent.seq, "sent"]);

  const stall = found.filter((v) => v.check === "transfer-stall");
  assert.equal(stall.length, 1);
  assert.equal(stall[0]!.room, B);
  assert.equal(stall[0]!.seq, timeoutB.seq);
  assert.equal(stall[0]!.detail.cause, "bootstrap-thread-dead");
  assert.deepEqual(stall[0]!.witness, [abortSent.seq, metaB.seq, timeoutB.seq]);

  const view = model.view();
  assert.deepEqual(view.bootstrapThreads.map((t) => [t.rank, t.alive]), [["prefill/tp0", false]]);
  const roomB = view.rooms.find((r) => r.room === B)!;
  assert.equal(roomB.prefill.state, KVPoll.Bootstrapping, "no metadata ever reaches the dead thread");
  assert.equal(roomB.decode.state, KVPoll.Failed);
  const roomA = view.rooms.find((r) => r.room === A)!;
  assert.equal(roomA.prefill.state, KVPoll.WaitingForInput, "the thread died before marking A Failed");
  assert.deepEqual(model.finish(s.events.at(-1)!.tsUs), [], "B was already reported through decode's timeout");
});

test("at the end, a prefill room stuck in Bootstrapping behind a dead bootstrap thread is reported (no NIXL prefill timeout before 0.5.18)", () => {
  const model = createModel(defaultProfile({ backend: "nixl", version: "0.5.14" }), { qualifyHosts: true });
  const s = new Stream();
  s.add("boot.got_info", { role: "prefill", host: "p0", room: A });
  const abort = s.add("abort.sent", { role: "decode", host: "d0", room: A });
  const arrive = s.add("req.arrive", { role: "prefill", host: "p0", room: B, rid: "r-b", at: 10 });
  const found = s.events.flatMap((e) => model.apply(e));
  assert.deepEqual(found, [], "no record shows the death yet");
  const end = model.finish(T0_US + 900e6);
  assert.deepEqual(end.map((v) => [v.check, v.room, v.rank, v.witness, v.detail.cause ?? v.detail.basis]), [
    ["transfer-stall", B, "p0/prefill/tp0", [abort.seq, arrive.seq], "bootstrap-thread-dead"],
    ["unhandled-abort", A, "p0/prefill/tp0", [abort.seq], "profile"],
  ], "the stuck room, and the death only the profile shows, at the end");
});

test("0.5.16 NIXL: the same ABORT marks the room Failed, sends no ACK, and the thread lives on", () => {
  const { model, found } = abortThenLaterRoom("0.5.16", false);
  assert.deepEqual(found.filter((v) => v.check === "unhandled-abort"), []);
  const view = model.view();
  assert.deepEqual(view.bootstrapThreads.map((t) => [t.rank, t.alive]), [["prefill/tp0", true]]);
  const roomA = view.rooms.find((r) => r.room === A)!;
  assert.equal(roomA.prefill.state, KVPoll.Failed);
  const stall = found.filter((v) => v.check === "transfer-stall");
  assert.equal(stall[0]!.detail.cause, "prefill-not-bootstrapped", "B still timed out, but not for a dead thread");
});

test("Mooncake answers ABORT: the room is Failed on prefill and the thread stays alive", () => {
  const model = createModel(defaultProfile({ backend: "mooncake", version: "0.5.14" }));
  const s = new Stream();
  s.add("boot.got_info", { role: "prefill", room: A, attrs: { required_dst_info_num: 1 } });
  s.add("kv.meta", { role: "decode", room: A, pages: [[0, 2]] });
  s.add("abort.sent", { role: "decode", room: A, text: `Sent abort notification for room ${A} to 10.0.0.1:17001` });
  s.add("abort.ack_sent", { role: "prefill", room: A, text: `Sent ABORT_ACK for room ${A} to 10.0.0.2:18001` });
  const found = run(model, s);
  assert.deepEqual(found, []);
  const view = model.view();
  assert.deepEqual(view.bootstrapThreads.map((t) => t.alive), [true]);
  assert.equal(view.rooms[0]!.prefill.state, KVPoll.Failed);
  assert.equal(view.rooms[0]!.decode.state, KVPoll.Failed);
});

test("a frame processed after a modelled death proves the thread alive (the evidence wins over the profile)", () => {
  const model = createModel(defaultProfile({ backend: "nixl", version: "0.5.14" }));
  const s = new Stream();
  s.add("boot.got_info", { role: "prefill", room: A });
  s.add("abort.sent", { role: "decode", room: A });
  s.add("boot.got_info", { role: "prefill", room: B, text: `got info room=${B} agent_name='decode_0' required_dst_info_num=1` });
  run(model, s);
  const view = model.view();
  assert.deepEqual(view.bootstrapThreads.map((t) => t.alive), [true]);
  assert.equal(view.rooms.find((r) => r.room === B)!.prefill.state, KVPoll.WaitingForInput);
});

test("default log lines only: decode's abort failures, the prefill thread's traceback, then a room that never bootstraps", () => {
  const model = createModel(defaultProfile({ backend: "nixl", version: "0.5.14" }));
  const s = new Stream();
  const aborts = [A, "8972542885242963300"].map((room, i) =>
    s.add("pd.transfer_failed", {
      role: "decode",
      host: "d0",
      tp: 0,
      room,
      attrs: { reasonKind: "abort", reason: "Aborted by AbortReq." },
      text: `Decode transfer failed for request rank=0 decode_req.req.rid='r${i}' decode_req.req.bootstrap_room=${room} with exception KVTransferError(bootstrap_room=${room}): Aborted by AbortReq.`,
      at: 5 + i * 0.01,
    }),
  );
  const exception = s.add("log.exception", {
    role: "prefill",
    host: "p0",
    attrs: { thread: "Thread-2 (bootstrap_thread)" },
    text: "Exception in thread Thread-2 (bootstrap_thread):\nTraceback (most recent call last):\n  File \"/usr/lib/python3.12/threading.py\", line 1075, in _bootstrap_inner\nAssertionError: First message should be b'NixlMsgGuard'. Foreign traffic?",
    at: 5.02,
  });
  const timeout = s.add("pd.transfer_failed", {
    role: "decode",
    host: "d0",
    tp: 0,
    room: B,
    attrs: { reasonKind: "timeout", timeoutState: "WaitingForInput" },
    text: `Decode transfer failed for request rank=0 decode_req.req.rid='r9' decode_req.req.bootstrap_room=${B} with exception KVTransferError(bootstrap_room=${B}): Request ${B} timed out after 300.0s in KVPoll.WaitingForInput`,
    at: 320,
  });
  const found = run(model, s);
  assert.deepEqual(
    found.map((v) => [v.check, v.seq, v.witness, v.rank]),
    [
      ["unhandled-abort", exception.seq, [aborts[1]!.seq, exception.seq], "prefill/tp0"],
      ["transfer-stall", timeout.seq, [exception.seq, timeout.seq], "decode/tp0"],
    ],
  );
  assert.equal(found[1]!.detail.cause, "bootstrap-thread-dead");
});
