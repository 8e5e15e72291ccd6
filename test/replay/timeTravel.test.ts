// Time travel: stateAt through snapshots equals a replay from the start;
// replays are deterministic and read the same events as the store's own
// queries; snapshots are reused, and invalidated by a re-ingest; stepping by
// room, rank and page; a point given as a time.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createModel, restoreModel, type ModelStateView } from "../../analyzer/model/index.js";
import { replayIncident } from "../../analyzer/replay/replay.js";
import { decodeSnapshot } from "../../analyzer/replay/snapshotCodec.js";
import { provenance, stateAt, timeline } from "../../analyzer/replay/timeTravel.js";
import { scopeOfEvent, step } from "../../analyzer/replay/navigation.js";
import { ingest } from "../../ingest/pipeline.js";
import { openIncident, type IncidentDb } from "../../store/db.js";
import { eventBySeq, iterateEvents } from "../../store/read/events.js";
import { writeBusyIncident } from "./generated.js";
import { at, ingestCase, seqOf } from "./incidents.js";
import { scratchDir } from "../scratchDir.js";

async function busyIncident(rooms: number): Promise<{ db: IncidentDb; path: string; dir: string }> {
  const dir = scratchDir("kvrewind-busy-");
  writeBusyIncident(join(dir, "inputs"), rooms);
  const path = join(dir, "incident.db");
  await ingest({ db: path, paths: [join(dir, "inputs")] });
  return { db: openIncident(path), path, dir };
}

/** The view after `seq` by the slow, obvious route: a fresh model over the store's own row reader. */
function viewByFullReplay(db: IncidentDb, seq: number): ModelStateView {
  const line = timeline(db);
  const model = createModel(line.choice.profile, line.options);
  for (const ev of iterateEvents(db)) {
    if (ev.seq > seq) break;
    model.apply(ev);
  }
  return model.view();
}

test("stateAt through the nearest snapshot equals a full replay from the start, at random points", async () => {
  const { db } = await busyIncident(60);
  const run = replayIncident(db, { snapshotEvery: 97, storeSnapshots: true });
  // Snapshots at least 97 events apart, and at least twice the live state the snapshot holds.
  const snaps = db.prepare("SELECT seq, state FROM snapshots ORDER BY seq").all() as { seq: number; state: Buffer }[];
  assert.equal(run.snapshots.count, snaps.length);
  assert.ok(snaps.length >= 2 && snaps[0]!.seq === run.firstSeq! + 96, `${snaps.length} snapshots, the first at ${snaps[0]?.seq}`);
  let widened = 0;
  for (let i = 1; i < snaps.length; i++) {
    const live = restoreModel(run.choice.profile, decodeSnapshot(snaps[i - 1]!.state)).liveState();
    assert.equal(snaps[i]!.seq - snaps[i - 1]!.seq, Math.max(97, 2 * live), `gap after the snapshot at ${snaps[i - 1]!.seq}`);
    if (2 * live > 97) widened++;
  }
  assert.ok(widened > 0, "the busy incident's live state spaces some snapshots wider");
  assert.ok(run.violations.some((v) => v.check === "stale-slot-reuse"), "the aborted rooms' pages are reused while their writes fly");
  const [lo, hi] = [run.firstSeq!, run.lastSeq!];
  let state = 12345;
  const points = [lo, hi, lo + 96, lo + 97, lo + 98];
  while (points.length < 40) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    points.push(lo + (state % (hi - lo + 1)));
  }
  points.push(lo + 300, lo + 301, lo + 302, lo + 350, lo + 349);
  for (const seq of points) {
    assert.deepEqual(stateAt(db, { seq }), viewByFullReplay(db, seq), `seq ${seq}`);
  }
  // Snapshots stored under another profile replace these; the default timeline must notice.
  replayIncident(db, { profileFlag: "version=0.5.14", snapshotEvery: 50, storeSnapshots: true });
  for (const seq of points.slice(0, 8)) {
    assert.deepEqual(stateAt(db, { seq }), viewByFullReplay(db, seq), `seq ${seq} after the snapshots were replaced`);
  }
  db.close();
});

test("a replay is deterministic, reads what the store's queries read, reuses stored snapshots and drops them after a re-ingest", async () => {
  const { db, path, dir } = await busyIncident(30);
  const unstored = replayIncident(db);
  assert.deepEqual([unstored.snapshots.reused, unstored.snapshots.stored], [false, false], "a replay keeps its snapshots in memory");
  assert.equal(db.prepare("SELECT COUNT(*) FROM snapshots").pluck().get(), 0);
  const first = replayIncident(db, { storeSnapshots: true });
  assert.deepEqual([first.snapshots.reused, first.snapshots.stored], [false, true], "the derive step's replay stores them");
  const second = replayIncident(db);
  assert.equal(second.snapshots.reused, true);
  const strip = (r: typeof first) => ({ violations: r.violations, coverage: r.coverage, choice: r.choice, events: r.events });
  assert.deepEqual(strip(second), strip(first));

  const line = timeline(db);
  const model = createModel(line.choice.profile, line.options);
  const plain = [...iterateEvents(db)].flatMap((ev) => model.apply(ev).map((v) => [v.check, v.seq, v.witness]));
  plain.push(...model.finish(eventBySeq(db, first.lastSeq!)!.tsUs).map((v) => [v.check, v.seq, v.witness]));
  assert.deepEqual(
    first.violations.map((v) => [v.check, v.seq, v.witness.map((w) => w.seq)]),
    plain.map(([check, seq, witness]) => [check, seq, (witness as number[]).filter((s) => s >= 0)]),
  );
  db.close();

  const later = join(dir, "later");
  mkdirSync(join(later, "decode-0"), { recursive: true });
  writeFileSync(
    join(later, "decode-0", "decode-tp0.log"),
    "[2026-08-20 10:15:09.000 TP0] Decode batch, #running-req: 3, #token: 9120, token usage: 0.02, pre-allocated usage: 0.00, #prealloc-req: 0, #transfer-req: 1, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 310.20, #queue-req: 0\n",
  );
  await ingest({ db: path, paths: [later] });
  const db2 = openIncident(path, { readonly: true });
  const third = replayIncident(db2);
  assert.equal(third.snapshots.reused, false, "new events: the snapshots are rebuilt");
  assert.equal(third.events, first.events + 1);
  db2.close();
});

test("stepping by event, room, rank and page; a time names the last event at or before it", async () => {
  const { db } = await ingestCase("healthy-transfer");
  const dec = (line: number): number => seqOf(db, "d0/decode-probe.jsonl", line);
  const pre = (line: number): number => seqOf(db, "p0/prefill-probe.jsonl", line);
  const R = "8972542885242963296";

  assert.equal(step(db, dec(3), "next", { by: "room", room: R })!.seq, pre(2), "decode metadata, then prefill's req.arrive");
  const rank = scopeOfEvent(db, dec(3), "rank")!;
  assert.deepEqual(rank, { by: "rank", host: "d0", role: "decode", tp: 0 });
  assert.equal(at(step(db, dec(3), "next", rank)!), "d0/decode-probe.jsonl:4");
  assert.equal(at(step(db, dec(4), "prev", rank)!), "d0/decode-probe.jsonl:3");
  assert.equal(step(db, dec(3), "next", { by: "event" })!.seq, dec(3) + 1);

  const page = scopeOfEvent(db, dec(8), "page")!;
  assert.deepEqual(page, { by: "page", host: "d0", role: "decode", tp: 0, pageLo: 16, pageHi: 20, layer: 0, buffer: "kv" });
  assert.equal(at(step(db, dec(8), "prev", page)!), "d0/decode-probe.jsonl:3", "kv.meta names the same pages");
  assert.equal(at(step(db, dec(3), "prev", page)!), "d0/decode-probe.jsonl:2");
  assert.equal(at(step(db, dec(8), "next", page)!), "d0/decode-probe.jsonl:9");
  assert.equal(step(db, dec(9), "next", page), null);
  assert.equal(step(db, pre(4), "next", scopeOfEvent(db, pre(4), "page")!), null, "chunk 1's pages [42,44) do not overlap [40,42)");
  assert.equal(scopeOfEvent(db, dec(4), "page"), null, "a notification names no pages");

  const poll = eventBySeq(db, dec(7))!;
  assert.deepEqual(stateAt(db, { tsUs: poll.tsUs }), stateAt(db, { seq: dec(7) }));
  assert.deepEqual(stateAt(db, { tsUs: poll.tsUs + 1 }), stateAt(db, { seq: dec(7) }), "no event in the next microsecond");
  assert.equal(stateAt(db, { tsUs: poll.tsUs - 1 }).atSeq, pre(7), "prefill's last kv.done came 7 ms before the poll");

  const view = stateAt(db, { seq: dec(7) }, { room: R });
  const refs = provenance(db, view);
  assert.equal(at(refs.get(view.rooms[0]!.prefill.changedAt!)!), "p0/prefill-probe.jsonl:7", "Success when the last chunk is done (§5.1)");
  assert.match(refs.get(view.atSeq)!.text, /"ev": "kv\.poll"/);
  db.close();
});
