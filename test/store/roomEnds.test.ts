// Where a room's records end (store/read/roomEnds.ts): walking the incident
// in seq order, a room is reported once the walk is past its last event and
// no later than the end of the block that event is in.

import { test } from "node:test";
import assert from "node:assert/strict";
import { eventBlocks } from "../../store/blocks/eventBlocks.js";
import { openIncident } from "../../store/db.js";
import { iterateEvents } from "../../store/read/events.js";
import { RoomEnds } from "../../store/read/roomEnds.js";
import { fixtureInputs, ingestedIncident } from "../sharedIncident.js";

test("a room is reported after its last event, by the end of that event's block", async () => {
  const db = openIncident(await ingestedIncident(fixtureInputs("healthy")), { readonly: true });
  const all = [...iterateEvents(db)];
  const lastOf = new Map<string, number>();
  for (const ev of all) if (ev.room !== null) lastOf.set(ev.room, ev.seq);
  const blocks = eventBlocks(db);
  const blockEnd = (seq: number) => blocks.list[blocks.indexAtOrAfter(seq)]!.lastSeq;
  assert.ok(blocks.list.length >= 2 && lastOf.size > 10, "rooms over more than one block");
  const ends = new RoomEnds(db);
  const reported = new Map<string, number>();
  for (const ev of all) {
    ends.passTo(ev.seq, (room) => void reported.set(room, ev.seq));
    if (ev.room !== null) {
      assert.ok(!reported.has(ev.room), `room ${ev.room} has an event after it was reported`);
      ends.track(ev.room);
    }
  }
  const lastSeq = all.at(-1)!.seq;
  for (const [room, last] of lastOf) {
    const at = reported.get(room);
    if (blockEnd(last) === lastSeq) assert.equal(at, undefined, `room ${room} ends in the last block`);
    else assert.equal(at, blockEnd(last) + 1, `room ${room} is reported at the first event after its last block`);
  }
  assert.ok(reported.size > 0);
  db.close();
});
