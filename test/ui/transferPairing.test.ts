// One pairing of a post with the notification that lands it, the reference
// model's (analyzer/model/transferPairing.ts): the flow's arrow and the
// timeline's transfer span follow it. A room whose decode side spans two TP
// ranks: prefill tp1 writes chunk 0 to decode tp1 alone (§5.2 rank mapping),
// so decode tp0's notification of chunk 0, logged first, is not its landing.
// The clock check's causal pairs follow the same rule.

import { test } from "node:test";
import assert from "node:assert/strict";
import { replayIncident } from "../../analyzer/replay/replay.js";
import { landingList } from "../../analyzer/model/transferPairing.js";
import { roomFlow } from "../../analyzer/timeline/flows.js";
import { buildTimelineIndex } from "../../analyzer/timeline/timelineIndex.js";
import { SpanTypes } from "../../analyzer/timeline/spanTypes.js";
import { eventsOfRoom } from "../../store/read/events.js";
import { Evidence } from "../../analyzer/rules/evidence.js";
import { causalInversions } from "../../analyzer/rules/gaps/clock.js";
import { buildIncident } from "../rules/incidentBuilder.js";
import { probe, type Rank } from "../rules/probeLines.js";

const ROOM = "5830149913321000007";
const P0: Rank = { host: "p0", role: "prefill", tp: 0 };
const P1: Rank = { host: "p0", role: "prefill", tp: 1 };
const D0: Rank = { host: "d0", role: "decode", tp: 0 };
const D1: Rank = { host: "d0", role: "decode", tp: 1 };

const decodeProbe = (rank: Rank, notifySec: number) =>
  [
    probe(1.0, rank, "kv.meta", { pages: [[0, 4]], dst: `p0/tp${rank.tp}`, item_len: 8448 }, ROOM),
    probe(notifySec, rank, "kv.notify", { tag: `${ROOM}_kv_0_1_${rank.tp}` }, ROOM),
  ].join("\n") + "\n";

const prefillProbe = (rank: Rank, postSec: number) =>
  probe(postSec, rank, "kv.post", { chunk: 0, last: true, buffer: "kv", pages: [[0, 4]], dst_pages: [[0, 4]], dst: `d0/tp${rank.tp}`, queue: 0 }, ROOM) + "\n";

test("the post's arrow and transfer span end at the notification of the decode rank it wrote to", async () => {
  const db = await buildIncident([
    { path: "p0/probe-tp0.jsonl", text: prefillProbe(P0, 1.3) },
    { path: "p0/probe-tp1.jsonl", text: prefillProbe(P1, 1.1) },
    { path: "d0/probe-tp0.jsonl", text: decodeProbe(D0, 1.4) },
    { path: "d0/probe-tp1.jsonl", text: decodeProbe(D1, 1.5) },
  ]);
  const events = eventsOfRoom(db, ROOM);
  const seqOf = (kind: string, tp: number) => events.find((e) => e.kind === kind && e.tp === tp)!.seq;
  const postTp1 = seqOf("kv.post", 1);
  const notifyTp0 = seqOf("kv.notify", 0);
  const notifyTp1 = seqOf("kv.notify", 1);
  // Decode tp0's notification comes first after tp1's post: a pairing by room and chunk alone takes it.
  assert.ok(postTp1 < notifyTp0 && notifyTp0 < notifyTp1);

  const landings = replayIncident(db).landings;
  assert.deepEqual(landingList(landings).filter((l) => l.post === postTp1), [{ post: postTp1, landing: notifyTp1, by: "notify" }]);

  const index = buildTimelineIndex(db, landings);
  const flow = roomFlow(db, ROOM, index.landings);
  assert.deepEqual(flow.edges.filter((e) => e.from === postTp1).map((e) => e.to), [notifyTp1]);

  const { spans } = index;
  const transfers = Array.from(spans.type.keys()).filter((i) => spans.type[i] === SpanTypes.transfer);
  const fromPostTp1 = transfers.filter((i) => spans.start[i] === index.ts[index.posOfSeq[postTp1]!]);
  assert.deepEqual(fromPostTp1.map((i) => spans.seq[i]), [notifyTp1]);
  assert.equal(spans.end[fromPostTp1[0]!], index.ts[index.posOfSeq[notifyTp1]!]);
  assert.equal(spans.open[fromPostTp1[0]!], 0);
  db.close();
});

test("the clock check pairs a notification with the post the model would land by it, even when it comes first", async () => {
  // Prefill TP 2, decode TP 1 (one host, so no clock is moved): prefill tp1
  // writes to decode tp0, the room's only decode rank (§5.2), and decode
  // tp0's notification of chunk 0 is stamped 1 s before that post.
  const decode: Rank = { host: "n0", role: "decode", tp: 0 };
  const prefill: Rank = { host: "n0", role: "prefill", tp: 1 };
  const db = await buildIncident([
    { path: "n0/probe-decode-tp0.jsonl", text: [probe(1.0, decode, "kv.meta", { pages: [[0, 4]], dst: "n0/tp1", item_len: 8448 }, ROOM), probe(1.2, decode, "kv.notify", { tag: `${ROOM}_kv_0_1_1` }, ROOM)].join("\n") + "\n" },
    { path: "n0/probe-prefill-tp1.jsonl", text: probe(2.2, prefill, "kv.post", { chunk: 0, last: true, buffer: "kv", pages: [[0, 4]], dst_pages: [[0, 4]], dst: "n0/tp0", queue: 0 }, ROOM) + "\n" },
  ]);
  const events = eventsOfRoom(db, ROOM);
  const [inversion] = causalInversions(new Evidence(db));
  assert.equal(inversion?.gap.kind, "causal-inversion");
  assert.deepEqual(inversion.witness.map((w) => w.seq), [events.find((e) => e.kind === "kv.post")!.seq, events.find((e) => e.kind === "kv.notify")!.seq]);
  db.close();
});

test("the clock check keeps a room's pairing until its last post or notification: rooms that interleave are counted apart, the first inversion by the notification's seq", async () => {
  // Three rooms on one host (no clock moved), their records interleaved in
  // time: room A's and room C's notifications come 1 s before their posts,
  // room B's after its post; room B's records all fall between A's.
  const [A, B, C] = ["5830149913321000011", "5830149913321000012", "5830149913321000013"];
  const decode: Rank = { host: "n0", role: "decode", tp: 0 };
  const prefill: Rank = { host: "n0", role: "prefill", tp: 0 };
  const post = (sec: number, room: string) => probe(sec, prefill, "kv.post", { chunk: 0, last: true, buffer: "kv", pages: [[0, 4]], dst_pages: [[0, 4]], dst: "n0/tp0", queue: 0 }, room);
  const notify = (sec: number, room: string) => probe(sec, decode, "kv.notify", { tag: `${room}_kv_0_1_0` }, room);
  const db = await buildIncident([
    { path: "n0/probe-decode-tp0.jsonl", text: [notify(1.0, A), notify(1.6, B), notify(2.5, C)].join("\n") + "\n" },
    { path: "n0/probe-prefill-tp0.jsonl", text: [post(1.5, B), post(2.0, A), post(3.5, C)].join("\n") + "\n" },
  ]);
  const seqOf = (room: string, kind: string) => eventsOfRoom(db, room).find((e) => e.kind === kind)!.seq;
  const gaps = causalInversions(new Evidence(db));
  assert.equal(gaps.length, 1);
  assert.match(gaps[0]!.gap.detail, /^2 kv\.notify record\(s\) precede their kv\.post/);
  assert.deepEqual(gaps[0]!.witness.map((w) => w.seq), [seqOf(A, "kv.post"), seqOf(A, "kv.notify")]);
  db.close();
});
