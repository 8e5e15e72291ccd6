// The REST API over a real incident: the NIXL abort-wedge fixture bundle,
// uploaded as a .tar.gz, ingested and analyzed in the background. Expectations
// come from the bundle's files and fixtures/README.md, with the protocol facts
// of docs/protocol.md §7.1 (a NIXL 0.5.14 prefill bootstrap
// thread dies on an ABORT frame).

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES, fixtureTarGz, getJson, startTestServer, uploadFiles, waitForIncident, type TestServer } from "./serverHarness.js";

let server: TestServer;
const ID = "nixl-abort-wedge";
const BUNDLE = join(FIXTURES, ID);

interface Witness {
  seq: number;
  source: string;
  line: number;
  text: string;
}
interface Finding {
  id: string;
  rule: string;
  body: { room?: string; witness: Witness[] };
  placed: { seq: number; tsUs: number; lane: number }[];
}

before(async () => {
  server = await startTestServer();
  const up = await uploadFiles(server, [{ name: `${ID}.tar.gz`, content: await fixtureTarGz(ID) }]);
  assert.equal(up.status, 202, JSON.stringify(up.body));
  assert.equal((up.body["incident"] as { id: string }).id, ID, "named after the archive");
  const incident = await waitForIncident(server, ID);
  assert.equal(incident["status"], "ready", JSON.stringify(incident));
});

after(async () => {
  await server?.close();
});

const api = async (path: string) => {
  const r = await getJson(server, `/api/incidents/${ID}${path}`);
  assert.equal(r.status, 200, `${path}: ${r.text}`);
  return r.body;
};

/** A line of a bundle file, 1-based, as the file has it. */
const fileLine = (file: string, line: number) => readFileSync(join(BUNDLE, file), "utf8").split("\n")[line - 1]!;

async function abortFinding(): Promise<Finding> {
  const { findings } = (await api("/findings")) as { findings: Finding[] };
  const f = findings.find((x) => x.rule === "unhandled-abort" && x.body.witness.some((w) => w.source === "p0/probe-tp0.jsonl"));
  assert.ok(f, "an unhandled-abort finding witnessed by p0 tp0's probe");
  return f;
}

test("the incident list shows the analyzed bundle with its ranks and top suspect", async () => {
  const { body } = await getJson(server, "/api/incidents");
  const [incident] = body["incidents"] as { id: string; status: string; inputFiles: number; summary: { ranks: string[]; topSuspect: { cause: string } } }[];
  assert.equal(incident!.id, ID);
  assert.equal(incident!.status, "ready");
  // fixtures/README.md: hosts p0, p1 (prefill) and d0, d1 (decode), a log per rank, and p0's probes: 40 files.
  assert.equal(incident!.inputFiles, 40);
  // TP8 on each host.
  const hostsRanks = ["p0/prefill", "p1/prefill", "d0/decode", "d1/decode"].flatMap((h) => Array.from({ length: 8 }, (_, tp) => `${h}/tp${tp}`));
  assert.deepEqual([...incident!.summary.ranks].sort(), hostsRanks.sort());
  assert.equal(incident!.summary.topSuspect.cause, "unhandled-abort");
});

test("lanes are per host, role, rank and component; the component comes from the event kind", async () => {
  const { lanes } = (await api("/lanes")) as { lanes: { id: number; host: string; role: string; tp: number | null; component: string; events: number }[] };
  const lane = (host: string, tp: number | null, component: string) => lanes.find((l) => l.host === host && l.tp === tp && l.component === component);
  // p0 tp0's probe holds boot.msg / boot.exit records (bootstrap lane) and one config record.
  const bootRecords = readFileSync(join(BUNDLE, "p0/probe-tp0.jsonl"), "utf8").split("\n").filter((l) => l.includes('"ev": "boot.')).length;
  assert.equal(lane("p0", 0, "bootstrap")?.events, bootRecords);
  // Batch lines are scheduler events; the decode timeouts are transfer events.
  assert.ok(lane("p0", 0, "scheduler")!.events > 0);
  assert.ok(lane("d0", 0, "transfer")!.events > 0);
  assert.equal(lane("d1", 0, "bootstrap"), undefined, "d1 has no probe and logs no bootstrap lines at info level");
  // Display order: hosts by name, prefill before decode within a host, ranks ascending.
  const order = lanes.map((l) => `${l.host}/${l.tp ?? -1}`);
  const firstP0 = order.indexOf("p0/-1") >= 0 ? order.indexOf("p0/-1") : order.indexOf("p0/0");
  assert.ok(order.indexOf("d0/0") < order.indexOf("d1/0") && order.indexOf("d1/0") < firstP0);
  assert.deepEqual(lanes.map((l) => l.id), lanes.map((_, i) => i));
});

test("a window holding more events than asked for comes back as buckets that add up; a small one as events", async () => {
  const meta = (await api("/lanes")) as { firstTsUs: number; lastTsUs: number; events: number; lanes: unknown[] };
  const whole = `from=${meta.firstTsUs}&to=${meta.lastTsUs + 1}`;
  const buckets = (await api(`/events?${whole}&buckets=300&max=100`)) as { mode: string; total: number; count: number[]; bucket: number[]; lane: number[] };
  assert.equal(buckets.mode, "buckets");
  assert.equal(buckets.total, meta.events);
  assert.equal(buckets.count.reduce((a, b) => a + b, 0), meta.events);
  assert.ok(buckets.bucket.every((b) => b >= 0 && b < 300));
  assert.ok(buckets.lane.every((l) => l >= 0 && l < meta.lanes.length));

  const exactly = (await api(`/events?${whole}&max=${meta.events}`)) as { mode: string; ts: number[]; seq: number[] };
  assert.equal(exactly.mode, "events");
  assert.equal(exactly.seq.length, meta.events);
  assert.ok(exactly.ts.every((t, i) => i === 0 || t >= exactly.ts[i - 1]!), "events in time order");
  const oneLess = (await api(`/events?${whole}&max=${meta.events - 1}`)) as { mode: string };
  assert.equal(oneLess.mode, "buckets");
});

test("an event comes with its raw record exactly as its file has it", async () => {
  const f = await abortFinding();
  for (const w of f.body.witness.filter((x) => x.source.endsWith(".jsonl"))) {
    const { event, source } = (await api(`/events/${w.seq}`)) as { event: { text: string; line: number; room: string | null }; source: { path: string } };
    assert.equal(source.path, w.source);
    assert.equal(event.text, fileLine(w.source, event.line));
  }
  const abort = f.body.witness.find((w) => w.source === "p0/probe-tp0.jsonl" && w.text.includes('"kind": "ABORT"'))!;
  const { event } = (await api(`/events/${abort.seq}`)) as { event: { room: string; kind: string } };
  // A 19-digit room, exactly as written (it is beyond 2^53).
  assert.equal(event.room, /"room": (\d+)/.exec(abort.text)![1]);
  assert.equal(event.kind, "boot.msg");
});

test("findings name their witnesses, placed on the timeline; the ranked suspects come with them", async () => {
  const { findings, suspects } = (await api("/findings")) as { findings: Finding[]; suspects: { rank: number; cause: string }[] };
  assert.equal(suspects[0]!.cause, "unhandled-abort");
  const f = await abortFinding();
  assert.ok(f.body.witness.some((w) => w.text.includes("First message should be b'NixlMsgGuard'. Foreign traffic?")));
  assert.deepEqual(
    f.placed.map((p) => p.seq),
    f.body.witness.map((w) => w.seq),
  );
  const stall = findings.find((x) => x.rule === "transfer-stall" && x.body.room === "8449771539072680511");
  assert.ok(stall, "the re-sent room that timed out on d0 (fixtures/README.md)");
});

test("p0 tp0's bootstrap thread is alive while it takes metadata frames and dead after the ABORT frame", async () => {
  const f = await abortFinding();
  const frame = f.body.witness.find((w) => w.source === "p0/probe-tp0.jsonl" && w.text.includes('"kind": "ABORT"'))!;
  type State = { atSeq: number; state: { bootstrapThreads: { rank: string; alive: boolean; error?: string }[] } };
  const tp0 = (s: State) => s.state.bootstrapThreads.find((t) => t.rank === "p0/prefill/tp0");
  const atFrame = (await api(`/state?seq=${frame.seq}`)) as State;
  assert.equal(atFrame.atSeq, frame.seq);
  assert.equal(tp0(atFrame)!.alive, false);
  assert.match(tp0(atFrame)!.error!, /Foreign traffic\?/);
  // The line before the frame in tp0's probe is the last metadata frame the thread took, 12 s earlier.
  const meta = fileLine("p0/probe-tp0.jsonl", frame.line - 1);
  assert.match(meta, /"ev": "boot\.msg", "kind": "meta"/);
  // Times are aligned per host: shift the file's time by the frame's offset (same host).
  const rawUs = (line: string) => Math.round(Number(/"ts": ([\d.]+)/.exec(line)![1]) * 1e6);
  const { event } = (await api(`/events/${frame.seq}`)) as { event: { tsUs: number } };
  const offset = event.tsUs - rawUs(frame.text);
  const atMeta = (await api(`/state?ts=${rawUs(meta) + offset}`)) as State;
  assert.ok(atMeta.atSeq < frame.seq);
  assert.equal(tp0(atMeta)!.alive, true);
});

test("stepping: next event of the same room and of the same rank", async () => {
  const f = await abortFinding();
  const frame = f.body.witness.find((w) => w.source === "p0/probe-tp0.jsonl" && w.text.includes('"kind": "ABORT"'))!;
  const room = /"room": (\d+)/.exec(frame.text)![1]!;
  // p0/probe-tp0.jsonl:63, the thread's exit, is tp0's next event (its log has no line in that millisecond).
  const byRank = (await api(`/step?seq=${frame.seq}&dir=next&by=rank`)) as { seq: number };
  const rankNext = (await api(`/events/${byRank.seq}`)) as { event: { line: number; kind: string }; source: { path: string } };
  assert.equal(`${rankNext.source.path}:${rankNext.event.line}`, `p0/probe-tp0.jsonl:${frame.line + 1}`);
  // The next event of the same room is another rank's ABORT frame for it or tp0's exit (which names the room too).
  const byRoom = (await api(`/step?seq=${frame.seq}&dir=next&by=room`)) as { seq: number };
  const roomNext = (await api(`/events/${byRoom.seq}`)) as { event: { room: string; kind: string } };
  assert.equal(roomNext.event.room, room);
  assert.ok(["boot.msg", "boot.exit"].includes(roomNext.event.kind));
  const back = (await api(`/step?seq=${byRoom.seq}&dir=prev&by=room`)) as { seq: number };
  assert.equal(back.seq, frame.seq);
  const pageless = await getJson(server, `/api/incidents/${ID}/step?seq=${frame.seq}&dir=next&by=page`);
  assert.equal(pageless.status, 400);
  assert.deepEqual(pageless.body, { error: `event ${frame.seq} names no page` });
});

test("stepping by page with the page named follows that one page, though the events it reaches touch ranges of pages", async () => {
  // The stale-slot-reuse fixture: decode allocates and frees rooms' pages as ranges, and reuses them.
  const STALE = "stale-slot-reuse";
  const up = await uploadFiles(server, [{ name: `${STALE}.tar.gz`, content: await fixtureTarGz(STALE) }]);
  assert.equal(up.status, 202);
  assert.equal((await waitForIncident(server, STALE))["status"], "ready");
  const get = async (path: string): Promise<Record<string, unknown>> => (await getJson(server, `/api/incidents/${STALE}${path}`)).body;
  const sql = "SELECT seq, page_lo, page_hi FROM events WHERE page_hi - page_lo > 2 ORDER BY seq LIMIT 1";
  const [start, lo, hi] = ((await get(`/query?sql=${encodeURIComponent(sql)}`)) as { rows: [number, number, number][] }).rows[0]!;
  const followed = lo + 1;
  let seq = start;
  let steps = 0;
  for (; steps < 6; steps++) {
    const next = (await get(`/step?seq=${seq}&dir=next&by=page&page=${followed}`)) as { seq: number | null };
    if (next.seq === null) break;
    const ev = (await get(`/events/${next.seq}`)) as { event: { pageLo: number; pageHi: number } };
    assert.ok(ev.event.pageLo <= followed && followed < ev.event.pageHi, `step ${steps + 1}: seq ${next.seq} touches [${ev.event.pageLo}, ${ev.event.pageHi}), not page ${followed} of [${lo}, ${hi})`);
    seq = next.seq;
  }
  assert.ok(steps > 0, "at least one later event touches the page");
  // The other tests see the server's incidents as they were.
  assert.equal((await fetch(new URL(`api/incidents/${STALE}`, server.url), { method: "DELETE" })).status, 200);
});

test("the flow of a room joins each ABORT frame to the end of the bootstrap thread that took it", async () => {
  const f = await abortFinding();
  const frame = f.body.witness.find((w) => w.source === "p0/probe-tp0.jsonl" && w.text.includes('"kind": "ABORT"'))!;
  // The thread's exit is the next line of the same probe file, and tp0's next event.
  const exitLine = fileLine("p0/probe-tp0.jsonl", frame.line + 1);
  assert.match(exitLine, /"ev": "boot\.exit"/);
  const exit = (await api(`/step?seq=${frame.seq}&dir=next&by=rank`)) as { seq: number };
  assert.equal(((await api(`/events/${exit.seq}`)) as { event: { text: string } }).event.text, exitLine);
  const room = /"room": (\d+)/.exec(frame.text)![1]!;
  const flow = (await api(`/flow?room=${room}`)) as { edges: { from: number; to: number; label: string }[]; events: { seq: number; lane: number | null }[] };
  assert.ok(flow.edges.some((e) => e.from === frame.seq && e.to === exit.seq && e.label === "bootstrap thread"));
  assert.ok(flow.events.every((e) => e.lane !== null));
});

test("NIXL: a decode abort of the room whose ABORT frame p0 tp0 took chains to the frame and to the thread's end", async () => {
  // p0/probe-tp0.jsonl:62 is tp0's ABORT frame for the room, :63 the thread's exit (fixtures/README.md).
  const frameLine = fileLine("p0/probe-tp0.jsonl", 62);
  assert.match(frameLine, /"ev": "boot\.msg", "kind": "ABORT"/);
  const room = /"room": (\d{19})/.exec(frameLine)![1]!;
  const abortLine = readFileSync(join(BUNDLE, "d0/decode-tp0.log"), "utf8").split("\n").findIndex((l) => l.includes(`bootstrap_room=${room} with exception`) && l.includes("Aborted by AbortReq")) + 1;
  assert.ok(abortLine > 0, "d0 tp0 logged the room's abort");
  const flow = (await api(`/flow?room=${room}`)) as { edges: { from: number; to: number; label: string }[]; events: { seq: number; lane: number | null }[] };
  const where = async (seq: number) => {
    const { event, source } = (await api(`/events/${seq}`)) as { event: { line: number }; source: { path: string } };
    return `${source.path}:${event.line}`;
  };
  const described = await Promise.all(flow.edges.map(async (e) => `${await where(e.from)} -${e.label}-> ${await where(e.to)}`));
  assert.ok(described.includes(`d0/decode-tp0.log:${abortLine} -ABORT-> p0/probe-tp0.jsonl:62`), described.join("\n"));
  assert.ok(described.includes("p0/probe-tp0.jsonl:62 -bootstrap thread-> p0/probe-tp0.jsonl:63"), described.join("\n"));
  assert.ok(flow.events.every((e) => e.lane !== null));
});

test("every room's flow answers, whatever its events", async () => {
  const rooms = new Set(
    ["d0", "d1"].flatMap((h) => [...readFileSync(join(BUNDLE, `${h}/decode-tp0.log`), "utf8").matchAll(/bootstrap_room=(\d{19})/g)].map((m) => m[1]!)),
  );
  assert.ok(rooms.size >= 58);
  for (const room of rooms) {
    const r = await getJson(server, `/api/incidents/${ID}/flow?room=${room}`);
    assert.equal(r.status, 200, `room ${room}: ${r.text}`);
  }
});

test("the state's rooms as the panel asks for them: a page not at Success with the focus first, a finding's rooms, the totals", async () => {
  type Room = { room: string; prefill: { state: number | null }; decode: { state: number | null } };
  type Totals = { rooms: number; roomsMatched: number; pages: number; pagesMatched: number };
  type State = { state: { rooms: Room[]; pages: unknown[] }; totals: Totals; changes: Record<string, unknown> };
  const { findings } = (await api("/findings")) as { findings: (Finding & { body: { rooms?: string[] } })[] };
  const stall = findings.find((x) => x.rule === "transfer-stall" && x.body.room === "8449771539072680511")!;
  const seq = Math.max(...stall.placed.map((p) => p.seq));
  const whole = (await api(`/state?seq=${seq}`)) as State;
  const notSuccess = whole.state.rooms.filter((r) => r.prefill.state !== 4 || r.decode.state !== 4);
  assert.ok(notSuccess.length > 3, `${notSuccess.length} rooms not at Success`);
  assert.deepEqual(whole.totals, { rooms: whole.state.rooms.length, roomsMatched: whole.state.rooms.length, pages: whole.state.pages.length, pagesMatched: whole.state.pages.length });

  const focus = notSuccess.at(-1)!.room;
  const page = (await api(`/state?seq=${seq}&notSuccess=1&limit=3&focus=${focus}`)) as State;
  assert.deepEqual(page.state.rooms.map((r) => r.room), [focus, ...notSuccess.slice(0, 2).map((r) => r.room)]);
  assert.equal(page.totals.rooms, whole.state.rooms.length);
  assert.equal(page.totals.roomsMatched, notSuccess.length);
  assert.ok(Object.keys(page.changes).length < Object.keys(whole.changes).length, "provenance of the rooms sent only");

  const stallRooms = new Set(findings.filter((f) => f.rule === "transfer-stall").flatMap((f) => [...(f.body.rooms ?? []), ...(f.body.room ? [f.body.room] : [])]));
  const inFinding = (await api(`/state?seq=${seq}&finding=${encodeURIComponent(stall.id)}`)) as State;
  assert.ok(inFinding.state.rooms.some((r) => r.room === stall.body.room), "the finding's own room");
  assert.ok(inFinding.state.rooms.every((r) => stallRooms.has(r.room)), "only rooms the stall findings name");
  assert.ok(inFinding.totals.roomsMatched < whole.state.rooms.length);

  const none = await getJson(server, `/api/incidents/${ID}/state?seq=${seq}&finding=no-such-finding`);
  assert.equal(none.status, 404);
  assert.match(String(none.body["error"]), /^no finding 'no-such-finding' in incident/);
});

test("every bad parameter is a 400 with a message, never a stack trace", async () => {
  const cases: [string, RegExp][] = [
    ["/events?from=abc&to=10", /^invalid window: 'from': /],
    ["/events?from=10&to=5", /^invalid window: 'to': 'to' must be after 'from'$/],
    ["/events?from=1&to=5&buckets=0", /^invalid window: 'buckets': /],
    ["/events?from=1&to=5&sql=select", /^invalid window: value: Unrecognized key: "sql"$/],
    ["/events?from=1&from=2&to=5", /^invalid window: 'from': /],
    ["/events/1.5", /^invalid event: 'seq': /],
    ["/events/-3", /^invalid event: 'seq': /],
    ["/state?seq=1&ts=2", /^invalid state query: value: give exactly one of 'seq' and 'ts'$/],
    ["/state", /^invalid state query: value: give exactly one of 'seq' and 'ts'$/],
    ["/state?seq=1&limit=0", /^invalid state query: 'limit': /],
    ["/state?seq=1&focus=12ab", /^invalid state query: 'focus': a room is its decimal number$/],
    ["/step?seq=1&dir=sideways", /^invalid step query: 'dir': /],
    ["/flow?room=12ab", /^invalid flow query: 'room': a room is a decimal integer$/],
  ];
  for (const [path, message] of cases) {
    const r = await getJson(server, `/api/incidents/${ID}${path}`);
    assert.equal(r.status, 400, path);
    assert.deepEqual(Object.keys(r.body), ["error"], path);
    assert.match(String(r.body["error"]), message, path);
    assert.doesNotMatch(r.text, /at .*\.js:\d+/, path);
  }
  const badId = await getJson(server, "/api/incidents/Not_Lower/lanes");
  assert.equal(badId.status, 400);
  assert.match(String(badId.body["error"]), /^invalid incident id: 'id': an incident id is lowercase letters, digits/);
  const unknown = await getJson(server, "/api/incidents/no-such-incident/lanes");
  assert.equal(unknown.status, 404);
  assert.deepEqual(unknown.body, { error: "no incident 'no-such-incident'" });
  const missingEvent = await getJson(server, `/api/incidents/${ID}/events/99999999`);
  assert.equal(missingEvent.status, 404);
});

test("a broken upload fails on its own; the other incident stays as it was", async () => {
  const before = (await api("/lanes")) as { events: number };
  // A binary file no format recognises: accepted as an upload, then the background job finds no events in it.
  const junk = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251));
  const up = await uploadFiles(server, [{ name: "core.bin", content: junk }], "?name=broken");
  assert.equal(up.status, 202);
  const broken = await waitForIncident(server, "broken");
  assert.equal(broken["status"], "failed");
  assert.match(String(broken["error"]), /^no events could be read from the upload/);
  const notReady = await getJson(server, "/api/incidents/broken/lanes");
  assert.equal(notReady.status, 409);
  assert.match(String(notReady.body["error"]), /^incident 'broken' is failed: no events could be read/);
  // A refused upload writes nothing at all.
  const refused = await uploadFiles(server, [{ name: "../escape.log", content: "x" }]);
  assert.equal(refused.status, 400);

  const list = (await getJson(server, "/api/incidents")).body["incidents"] as { id: string; status: string }[];
  assert.deepEqual(list.map((i) => [i.id, i.status]).sort(), [["broken", "failed"], [ID, "ready"]]);
  assert.equal(((await api("/lanes")) as { events: number }).events, before.events);
  assert.equal(((await api("/findings")) as { suspects: { cause: string }[] }).suspects[0]!.cause, "unhandled-abort");
});
