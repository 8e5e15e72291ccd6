// The reads behind the page's overview, marks and omnibox, and the incident
// list's actions, on the NIXL abort-wedge bundle. By hand from the bundle's
// files (fixtures/README.md): room 8449771539072680511 is re-sent, waits and
// times out on d0 "after 300.0s in KVPoll.WaitingForInput" (d0/decode-tp0.log),
// its rid is in that line; p0 tp0's bootstrap thread dies on an ABORT frame
// with "Foreign traffic?" (p0/prefill-tp0.log, p0/probe-tp0.jsonl:62).

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES, fixtureTarGz, getJson, startTestServer, uploadFiles, waitForIncident, type TestServer } from "./serverHarness.js";

let server: TestServer;
const ID = "nixl-abort-wedge";
const BUNDLE = join(FIXTURES, ID);

before(async () => {
  server = await startTestServer();
  const up = await uploadFiles(server, [{ name: `${ID}.tar.gz`, content: await fixtureTarGz(ID) }]);
  assert.equal(up.status, 202);
  assert.equal((await waitForIncident(server, ID))["status"], "ready");
});
after(async () => {
  await server?.close();
});

const api = async (path: string) => {
  const r = await getJson(server, `/api/incidents/${ID}${path}`);
  assert.equal(r.status, 200, `${path}: ${r.text}`);
  return r.body;
};

type Lanes = { firstTsUs: number; lastTsUs: number; events: number; kinds: string[]; labels: string[] };
type Window = { mode: string; total: number; seq: number[]; ts: number[]; kind: number[]; label: number[]; spans: { start: number[]; end: number[]; type: number[]; seq: number[]; room: (string | null)[]; label: number[] } };

const timeoutLine = () => {
  const lines = readFileSync(join(BUNDLE, "d0/decode-tp0.log"), "utf8").split("\n");
  const i = lines.findIndex((l) => l.includes("bootstrap_room=8449771539072680511 with exception") && l.includes("timed out after 300.0s"));
  return { line: i + 1, text: lines[i]! };
};

test("the overview counts every event once per lane group, and its gaps hold no event", async () => {
  const lanes = (await api("/lanes")) as Lanes;
  const o = (await api("/overview?buckets=200")) as { groups: string[]; count: number[][]; tone: number[][]; gaps: [number, number][] };
  assert.deepEqual(o.groups, ["d0/decode", "d1/decode", "p0/prefill", "p1/prefill"]);
  assert.equal(o.count.flat().reduce((a, b) => a + b, 0), lanes.events);
  assert.ok(o.tone.flat().includes(2), "a failure (the dead bootstrap threads) is marked loud");
  assert.ok(o.gaps.length > 0);
  for (const [from, to] of o.gaps) {
    assert.ok(to - from >= Math.max(1e6, (lanes.lastTsUs - lanes.firstTsUs) / 100));
    const inside = (await api(`/events?from=${from + 1}&to=${to}`)) as Window;
    assert.equal(inside.total, 0, `no event in the gap ${from}..${to}`);
  }
});

test("a timeout's wait is a span back from its line by the time it names; an ABORT frame is named", async () => {
  const lanes = (await api("/lanes")) as Lanes;
  const w = (await api(`/events?from=${lanes.firstTsUs}&to=${lanes.lastTsUs + 1}&max=100000`)) as Window;
  const { line } = timeoutLine();
  const waits = w.spans.seq.map((seq, i) => ({ seq, i })).filter(({ i }) => w.spans.type[i] === 2 && w.spans.room[i] === "8449771539072680511");
  assert.ok(waits.length >= 8, "a wait on each of d0's 8 ranks");
  let onTheLine = 0;
  for (const { seq, i } of waits) {
    const { event, source } = (await api(`/events/${seq}`)) as { event: { tsUs: number; line: number }; source: { path: string } };
    assert.equal(w.spans.end[i], event.tsUs);
    assert.equal(event.tsUs - w.spans.start[i]!, 300e6, "300.0 s");
    assert.equal(lanes.labels[w.spans.label[i]!], "waited 300s in WaitingForInput");
    if (source.path === "d0/decode-tp0.log" && event.line === line) onTheLine++;
  }
  assert.equal(onTheLine, 1);
  const frame = readFileSync(join(BUNDLE, "p0/probe-tp0.jsonl"), "utf8").split("\n")[61]!;
  const frameTs = Math.round(Number(/"ts": ([\d.]+)/.exec(frame)![1]) * 1e6);
  const abortAt = w.ts.findIndex((t, i) => Math.abs(t - frameTs) < 2 && lanes.kinds[w.kind[i]!] === "boot.msg");
  assert.ok(abortAt >= 0);
  assert.equal(lanes.labels[w.label[abortAt]!], "ABORT");
});

test("a hidden kind leaves the window, counts included", async () => {
  const lanes = (await api("/lanes")) as Lanes;
  const whole = `from=${lanes.firstTsUs}&to=${lanes.lastTsUs + 1}`;
  const http = lanes.kinds.indexOf("http.access");
  const all = (await api(`/events?${whole}&max=100000`)) as Window;
  const without = (await api(`/events?${whole}&max=100000&hide=${http}`)) as Window;
  const https = all.kind.filter((k) => k === http).length;
  assert.ok(https > 0);
  assert.equal(without.total, all.total - https);
  assert.ok(!without.kind.includes(http));
  const buckets = (await api(`/events?${whole}&max=10&buckets=50&hide=${http}`)) as { count: number[] };
  assert.equal(buckets.count.reduce((a, b) => a + b, 0), all.total - https);
});

test("the omnibox finds a room by prefix, a request id inside it, and a text", async () => {
  const found = (await api("/search?q=84497715")) as { rooms: { room: string; firstSeq: number }[]; rids: unknown[]; text: null };
  assert.deepEqual(found.rooms.map((r) => r.room), ["8449771539072680511"]);
  const rid = /rid='([0-9a-f]{32})'/.exec(timeoutLine().text)![1]!;
  const byRid = (await api(`/search?q=${rid.slice(4, 14)}`)) as { rids: { rid: string; firstSeq: number }[] };
  assert.deepEqual(byRid.rids.map((r) => r.rid), [rid]);
  const text = (await api(`/search?q=${encodeURIComponent("Foreign traffic?")}&text=1`)) as { text: { complete: boolean; hits: { source: string; line: number; excerpt: string }[] } };
  assert.equal(text.text.complete, true);
  const lines = readFileSync(join(BUNDLE, "p0/prefill-tp0.log"), "utf8").split("\n");
  const start = lines.findIndex((l) => l.startsWith("Exception in thread")) + 1;
  assert.ok(text.text.hits.some((h) => h.source === "p0/prefill-tp0.log" && h.line === start && h.excerpt.includes("Foreign traffic?")));
  assert.ok(text.text.hits.some((h) => h.source === "p0/probe-tp0.jsonl" && h.line === 63), "the thread's exit record names the error too");
  const bad = await getJson(server, `/api/incidents/${ID}/search?q=`);
  assert.equal(bad.status, 400);
});

test("an incident can be analyzed again, and deleted", async () => {
  const before = ((await api("/findings")) as { findings: unknown[] }).findings.length;
  const again = await fetch(new URL(`api/incidents/${ID}/reanalyze`, server.url), { method: "POST" });
  assert.equal(again.status, 202);
  assert.equal((await waitForIncident(server, ID))["status"], "ready");
  assert.equal(((await api("/findings")) as { findings: unknown[] }).findings.length, before);
  const gone = await fetch(new URL(`api/incidents/${ID}`, server.url), { method: "DELETE" });
  assert.deepEqual(await gone.json(), { deleted: ID });
  assert.equal((await getJson(server, `/api/incidents/${ID}`)).status, 404);
  assert.equal(existsSync(join(server.dataDir, "incidents", ID)), false);
  assert.equal((await fetch(new URL(`api/incidents/${ID}`, server.url), { method: "DELETE" })).status, 404);
});
