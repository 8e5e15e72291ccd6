// A room's flow in a healthy NIXL run (the `healthy` fixture bundle, probe on
// tp0 of every host): the prefill post of a chunk, the decode notification
// that names that chunk (`{room}_kv_{chunk}_{is_last}_{src}`, protocol ref §6),
// the decode poll that saw it, and, after a Success poll, the read.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES, fixtureTarGz, getJson, startTestServer, uploadFiles, waitForIncident, type TestServer } from "./serverHarness.js";

let server: TestServer;
const ID = "healthy";

before(async () => {
  server = await startTestServer();
  const up = await uploadFiles(server, [{ name: `${ID}.tar.gz`, content: await fixtureTarGz(ID) }]);
  assert.equal(up.status, 202, JSON.stringify(up.body));
  assert.equal((await waitForIncident(server, ID))["status"], "ready");
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
    assert.match(String(notify.attrs!["tag"]), new RegExp(`^${room}_kv_${post.chunk}_`));
  }
  const polled = chain["kv.notify->kv.poll"] ?? [];
  assert.ok(polled.length > 0, "a notification is seen by a poll");
  for (const [notify, poll] of polled) assert.deepEqual([poll.host, poll.tp], [notify.host, notify.tp]);
  const reads = chain["kv.poll->kernel.read"] ?? [];
  assert.equal(reads.length, 1, "the Success poll leads to the read");
  assert.equal(reads[0]![0].state, 4);
  assert.equal(reads[0]![1].room, room);
});
