// A room's flow in a healthy NIXL run (the `healthy` fixture bundle, probe on
// tp0 of every host): the prefill post of a chunk, the decode notification
// that names that chunk (`{room}_kv_{chunk}_{is_last}_{src}`, protocol ref §6)
// on the decode rank the post wrote to, the decode poll that saw it, and, after a Success poll, the read. And in a
// Mooncake run with aborts (`stale-slot-reuse`): decode's ABORT reaches the
// prefill rank of the same TP, which marks the room Failed and answers
// ABORT_ACK (§7.2), for every room, none of them an error.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES, fixtureTarGz, getJson, startTestServer, uploadFiles, waitForIncident, type TestServer } from "./serverHarness.js";

let server: TestServer;
const ID = "healthy";
const MOONCAKE = "stale-slot-reuse";

before(async () => {
  server = await startTestServer();
  for (const id of [ID, MOONCAKE]) {
    const up = await uploadFiles(server, [{ name: `${id}.tar.gz`, content: await fixtureTarGz(id) }]);
    assert.equal(up.status, 202, JSON.stringify(up.body));
    assert.equal((await waitForIncident(server, id))["status"], "ready");
  }
});

after(async () => {
  await server?.close();
});

type Ev = { kind: string; room: string | null; host: string | null; tp: number | null; chunk: number | null; state: number | null; attrs: Record<string, unknown> | null };

test("post -> notify -> poll -> read for the first room d0 tp0 reads", async () => {
  // The room of the first index-K read in d0 tp0's probe.
  const firstRead = readFileSync(join(FIXTURES, ID, "d0/probe-tp0.jsonl"), "utf8")
    .split("\n")
    .find((l) => l.includes('"ev": "kernel.read"'))!;
  const room = /"room": (\d{19})/.exec(firstRead)![1]!;

  const flow = (await getJson(server, `/api/incidents/${ID}/flow?room=${room}`)).body as { edges: { from: number; to: number; label: string }[] };
  const ev = async (seq: number) => ((await getJson(server, `/api/incidents/${ID}/events/${seq}`)).body as { event: Ev }).event;
  const chain: Record<string, [Ev, Ev][]> = {};
  for (const e of flow.edges) {
    const [from, to] = [await ev(e.from), await ev(e.to)];
    (chain[`${from.kind}->${to.kind}`] ??= []).push([from, to]);
  }

  const posts = chain["kv.post->kv.notify"] ?? [];
  assert.ok(posts.length > 0, "a post reaches its notification");
  for (const [post, notify] of posts) {
    assert.equal(post.host?.startsWith("p"), true, "posted on prefill");
    assert.notEqual(post.chunk, null);
    assert.equal(notify.host, "d0");
    assert.equal(notify.tp, post.tp, "on the decode rank of the post's TP (§5.2 rank mapping)");
    // The chunk's own notification, or for the last chunk, whose post also writes the
    // room's state (index-K) pages, the state notification that lands those (§6 step 3).
    assert.match(String(notify.attrs!["tag"]), new RegExp(`^${room}_(kv_${post.chunk}_|state_)`));
  }
  const polled = chain["kv.notify->kv.poll"] ?? [];
  assert.ok(polled.length > 0, "a notification is seen by a poll");
  for (const [notify, poll] of polled) assert.deepEqual([poll.host, poll.tp], [notify.host, notify.tp]);
  const reads = chain["kv.poll->kernel.read"] ?? [];
  assert.equal(reads.length, 1, "the Success poll leads to the read");
  assert.equal(reads[0]![0].state, 4);
  assert.equal(reads[0]![1].room, room);
});

type Flow = { edges: { from: number; to: number; label: string }[]; events: { seq: number; lane: number | null }[] };
type Placed = { event: { line: number; kind: string; tp: number | null; room: string | null }; source: { path: string } };

test("Mooncake: every room's flow answers, and decode's ABORT reaches the prefill rank that acknowledges it", async () => {
  const logs = ["d0", "d1"].flatMap((host) => Array.from({ length: 8 }, (_, tp) => `${host}/decode-tp${tp}.log`));
  const aborted = new Set(logs.flatMap((f) => [...readFileSync(join(FIXTURES, MOONCAKE, f), "utf8").matchAll(/Sent abort notification for room (\d{19})/g)].map((m) => m[1]!)));
  assert.ok(aborted.size > 0);
  for (const room of aborted) {
    const r = await getJson(server, `/api/incidents/${MOONCAKE}/flow?room=${room}`);
    assert.equal(r.status, 200, `room ${room}: ${r.text}`);
  }

  // d1 tp0 aborts 3316900739918585146 (decode-tp0.log:124); p0 tp0 receives it, marks the room Failed, and answers.
  const room = "3316900739918585146";
  const flow = (await getJson(server, `/api/incidents/${MOONCAKE}/flow?room=${room}`)).body as Flow;
  const at = async (seq: number) => (await getJson(server, `/api/incidents/${MOONCAKE}/events/${seq}`)).body as Placed;
  const described: string[] = [];
  for (const e of flow.edges) {
    const [a, b] = [await at(e.from), await at(e.to)];
    described.push(`${a.source.path}:${a.event.line} ${a.event.kind} -${e.label}-> ${b.source.path} ${b.event.kind}`);
  }
  const sent = described.filter((d) => d.startsWith("d1/decode-tp0.log:124 abort.sent -ABORT-> "));
  assert.deepEqual(sent, ["d1/decode-tp0.log:124 abort.sent -ABORT-> p0/prefill-tp0.log abort.received"]);
  assert.ok(described.includes(described.find((d) => /^p0\/prefill-tp0\.log:\d+ abort\.received -bootstrap thread-> p0\/prefill-tp0\.log abort\.ack_sent$/.test(d))!));
  assert.ok(!described.some((d) => d.includes("ABORT → bootstrap thread")), "no Mooncake bootstrap thread died");
  assert.ok(flow.events.every((e) => e.lane !== null));
});
