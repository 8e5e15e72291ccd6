// A batch's string table hashes the values that repeat (a peer name) and
// appends the ones that seldom do (a notification tag per line) without
// hashing them: the stored attrs must be the same either way, through a real
// ingest into a real incident file.

import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ingest } from "../../ingest/pipeline.js";
import { openIncident } from "../../store/db.js";
import { iterateEvents } from "../../store/read/events.js";
import { BatchStrings } from "../../store/rows.js";
import { AttrsRowsBuilder } from "../../store/blocks/attrsEncode.js";
import { scratchDir } from "../scratchDir.js";

const LINES = 3000;

function room(i: number): string {
  return (5737280593427923200n + BigInt(i * 7919)).toString();
}

function sentLine(i: number): string {
  const ms = String(i % 1000).padStart(3, "0");
  const tp = i % 8;
  return `[2026-08-20 10:00:${String(Math.floor(i / 1000)).padStart(2, "0")}.${ms} TP${tp}] sending kvcache to d0-tp${tp} with notif ${room(i)}_kv_${i % 5}_${i % 5 === 4 ? 1 : 0}_${tp}`;
}

test("attrs whose values seldom repeat are stored as they were parsed", async () => {
  const dir = scratchDir("kvrewind-batch-strings-");
  const log = join(dir, "prefill-0.log");
  writeFileSync(log, Array.from({ length: LINES }, (_, i) => sentLine(i)).join("\n") + "\n");
  const db = join(dir, "incident.db");
  await ingest({ db, paths: [log] });
  const read = openIncident(db, { readonly: true });
  const events = [...iterateEvents(read)];
  read.close();
  assert.equal(events.length, LINES);
  for (const [i, ev] of events.entries()) {
    const tp = i % 8;
    const tag = `${room(i)}_kv_${i % 5}_${i % 5 === 4 ? 1 : 0}_${tp}`;
    assert.equal(ev.kind, "xfer.notif_sent", `line ${i + 1}`);
    assert.equal(ev.room, room(i), `line ${i + 1}`);
    assert.equal(ev.chunk, i % 5, `line ${i + 1}`);
    assert.deepEqual(ev.attrs, { peer: `d0-tp${tp}`, tag, tagKind: "kv", isLast: i % 5 === 4, src: tp }, `line ${i + 1}`);
  }
});

test("a batch hashes the slot values that repeat and appends the ones that do not", () => {
  const strings = new BatchStrings();
  const rows = new AttrsRowsBuilder(LINES, strings);
  for (let i = 0; i < LINES; i++) rows.addRow({ peer: `d0-tp${i % 8}`, tag: `${room(i)}_aux` }, NaN, NaN);
  const attrs = rows.take();
  const list = strings.take();
  // Eight peers, each once; every tag once (they are all different).
  assert.equal(list.length, 8 + LINES);
  assert.equal(new Set(list).size, list.length);
  const peerIds = new Set<number>();
  for (let i = 0; i < LINES; i++) peerIds.add(attrs.values[attrs.start[i]!]!);
  assert.equal(peerIds.size, 8);
  for (let i = 0; i < LINES; i++) assert.equal(list[attrs.values[attrs.start[i]! + 1]!], `${room(i)}_aux`);
});

test("values that repeat after the sample are still stored right when appended twice", () => {
  const strings = new BatchStrings();
  const rows = new AttrsRowsBuilder(2000, strings);
  // 300 distinct values make the slot count as seldom repeating; then the same 10 values again and again.
  const value = (i: number): string => (i < 300 ? `error ${i}` : `error ${i % 10}`);
  for (let i = 0; i < 2000; i++) rows.addRow({ error: value(i) }, NaN, NaN);
  const attrs = rows.take();
  const list = strings.take();
  for (let i = 0; i < 2000; i++) assert.equal(list[attrs.values[attrs.start[i]!]!], value(i), `row ${i}`);
  assert.ok(list.length > 300, "after the sample the slot's values are appended");
});
