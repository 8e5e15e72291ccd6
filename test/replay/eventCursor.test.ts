// The replay's event cursor reads the event blocks in place: every field of
// every event must be what was parsed from the logs (the probe JSONL records
// written here), and `attr(key)` what `attrs[key]` holds, without the object
// being built first.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { EventReader } from "../../store/blocks/eventCursor.js";
import { ingest } from "../../ingest/pipeline.js";
import { openIncident, type IncidentDb } from "../../store/db.js";
import { writeBusyIncident } from "./generated.js";
import { ingestCase } from "./incidents.js";
import { scratchDir } from "../scratchDir.js";

const FIELDS = ["seq", "tsUs", "sourceId", "line", "host", "role", "dp", "pp", "tp", "kind", "room", "rid", "chunk", "layer", "pageLo", "pageHi", "state"] as const;

/** Checks attr(key) against attrs, before and after the object is built; returns the events read. */
function checkCursor(db: IncidentDb): { seq: number; kind: string; room: string | null; text: string }[] {
  const seen: { seq: number; kind: string; room: string | null; text: string }[] = [];
  let last = 0;
  new EventReader(db).forEach(-Infinity, Infinity, (ev) => {
    assert.equal(ev.seq, last + 1, "seqs are dense from 1");
    last = ev.seq;
    for (const f of FIELDS) assert.notEqual(ev[f], undefined, `seq ${ev.seq} ${f}`);
    const attrs = ev.attrs === null ? null : structuredClone(ev.attrs);
    for (const [key, value] of Object.entries(attrs ?? {})) assert.deepEqual(ev.attr(key), value, `seq ${ev.seq} attr ${key}`);
    assert.equal(ev.attr("no_such_attribute"), undefined);
    seen.push({ seq: ev.seq, kind: ev.kind, room: ev.room, text: ev.text });
  });
  return seen;
}

test("the cursor reads every field and attribute of hand-written incidents", async () => {
  for (const name of ["healthy-transfer", "stale-slot-reuse", "nixl-abort-wedge", "hicache-race", "pool-sizing"]) {
    const { db } = await ingestCase(name);
    assert.ok(checkCursor(db).length > 0, name);
    db.close();
  }
});

test("the cursor reads a busier generated incident, block after block, as the probe records were written", async () => {
  const dir = scratchDir("kvrewind-cursor-");
  writeBusyIncident(join(dir, "inputs"), 240);
  const path = join(dir, "incident.db");
  await ingest({ db: path, paths: [join(dir, "inputs")] });
  const db = openIncident(path);
  const seen = checkCursor(db);
  assert.ok(seen.length > 4096, "more than one block");
  // Every probe record's text is the line as written, and its room and kind are the record's own.
  const written = new Set<string>();
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.endsWith(".jsonl")) for (const line of readFileSync(join(d, e.name), "utf8").split("\n")) if (line) written.add(line);
    }
  };
  walk(join(dir, "inputs"));
  const probes = seen.filter((ev) => written.has(ev.text));
  assert.ok(probes.length > 1000);
  for (const ev of probes) {
    assert.equal(ev.kind, (JSON.parse(ev.text) as { ev: string }).ev, `seq ${ev.seq}`);
    // 19-digit rooms, beyond a float's precision: read from the text as written.
    assert.equal(ev.room, /"room": (\d+)/.exec(ev.text)?.[1] ?? null, `seq ${ev.seq} room`);
  }
  db.close();
});
