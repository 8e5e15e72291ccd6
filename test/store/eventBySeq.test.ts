// One event by seq on a fresh connection is found through the blocks'
// first_seq index without reading the block list; it must be the same event,
// text included, as the block-list path and an in-order walk give — at the
// first and last seq, at a block boundary, and nothing past either end.

import { test } from "node:test";
import assert from "node:assert/strict";
import { eventBlocks } from "../../store/blocks/eventBlocks.js";
import { openIncident } from "../../store/db.js";
import { eventBySeq, iterateEvents } from "../../store/read/events.js";
import { fixtureInputs, ingestedIncident } from "../sharedIncident.js";


test("a seq on a fresh connection reads the same event as the block list path and a walk", async () => {
  const path = await ingestedIncident(fixtureInputs("healthy"));
  const walk = openIncident(path, { readonly: true });
  const all = [...iterateEvents(walk)];
  const blocks = eventBlocks(walk).list;
  walk.close();
  assert.ok(blocks.length >= 2, "the fixture spans more than one block");
  const boundary = blocks[1]!.firstSeq;
  const first = all[0]!.seq;
  const last = all.at(-1)!.seq;
  for (const seq of [first, boundary - 1, boundary, Math.floor((first + last) / 2), last]) {
    const expected = all.find((e) => e.seq === seq)!;
    const fresh = openIncident(path, { readonly: true });
    assert.deepEqual(eventBySeq(fresh, seq), expected, `seq ${seq} on a fresh connection`);
    fresh.close();
    const warm = openIncident(path, { readonly: true });
    eventBlocks(warm);
    assert.deepEqual(eventBySeq(warm, seq), expected, `seq ${seq} through the block list`);
    warm.close();
  }
  assert.ok(all.every((e) => e.text.length > 0), "the fixture's events carry their text");
  for (const seq of [first - 1, last + 1]) {
    const fresh = openIncident(path, { readonly: true });
    assert.equal(eventBySeq(fresh, seq), undefined, `no event at seq ${seq}`);
    fresh.close();
  }
});
