// The replay's event cursor reads the column cache in place: every field of
// every event must be what the store's own row reader gives, and `attr(key)`
// what `attrs[key]` holds, without the object being built first.

import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { EventColumns } from "../../analyzer/replay/eventColumns.js";
import { EventReader } from "../../analyzer/replay/eventReader.js";
import { ingest } from "../../ingest/pipeline.js";
import { openIncident, type IncidentDb } from "../../ingest/store/db.js";
import { iterateEvents, type StoredEvent } from "../../ingest/store/queries.js";
import { writeBusyIncident } from "./generated.js";
import { ingestCase } from "./incidents.js";
import { scratchDir } from "../scratchDir.js";

const FIELDS = ["seq", "tsUs", "sourceId", "line", "host", "role", "dp", "pp", "tp", "kind", "room", "rid", "chunk", "layer", "pageLo", "pageHi", "state"] as const;

function checkCursor(db: IncidentDb): number {
  const stored = new Map<number, StoredEvent>();
  for (const ev of iterateEvents(db)) stored.set(ev.seq, ev);
  let n = 0;
  new EventReader(db, EventColumns.open(db)).forEach(-Infinity, Infinity, (ev) => {
    const row = stored.get(ev.seq)!;
    for (const f of FIELDS) assert.equal(ev[f], row[f], `seq ${ev.seq} ${f}`);
    for (const [key, value] of Object.entries(row.attrs ?? {})) assert.deepEqual(ev.attr(key), value, `seq ${ev.seq} attr ${key} before attrs`);
    assert.equal(ev.attr("no_such_attribute"), undefined);
    assert.deepEqual(ev.attrs, row.attrs, `seq ${ev.seq} attrs`);
    for (const [key, value] of Object.entries(row.attrs ?? {})) assert.deepEqual(ev.attr(key), value, `seq ${ev.seq} attr ${key} after attrs`);
    n++;
  });
  assert.equal(n, stored.size);
  return n;
}

test("the cursor reads every field and attribute of hand-written incidents as the store does", async () => {
  for (const name of ["healthy-transfer", "stale-slot-reuse", "nixl-abort-wedge", "hicache-race", "pool-sizing"]) {
    const { db } = await ingestCase(name);
    assert.ok(checkCursor(db) > 0, name);
    db.close();
  }
});

test("the cursor reads a busier generated incident, chunk after chunk, as the store does", async () => {
  const dir = scratchDir("kvrewind-cursor-");
  writeBusyIncident(join(dir, "inputs"), 40);
  const path = join(dir, "incident.db");
  await ingest({ db: path, paths: [join(dir, "inputs")] });
  const db = openIncident(path);
  assert.ok(checkCursor(db) > 1000);
  db.close();
});
