// One pass over the blocks for several readers (store/blocks/pass.ts): each
// reader sees exactly the events a scan of its own kinds would show, in seq
// order, and each block is decoded once however many readers want it.

import { test } from "node:test";
import assert from "node:assert/strict";
import { DecodedBlock } from "../../store/blocks/blockCodec.js";
import { readBlocksOnce, type BlockReader } from "../../store/blocks/pass.js";
import { scanEvents } from "../../store/blocks/scan.js";
import { openIncident } from "../../store/db.js";
import { fixtureInputs, ingestedIncident } from "../sharedIncident.js";

function recorder(kinds: readonly string[] | null): BlockReader & { seen: string[] } {
  const seen: string[] = [];
  return { kinds, seen, visit: (ev) => void seen.push(`${ev.seq} ${ev.kind} ${ev.room}`) };
}

test("readers of one pass see what their own scans see, each block decoded once", async () => {
  const path = await ingestedIncident(fixtureInputs("healthy"));
  const db = openIncident(path, { readonly: true });
  // The pass on a connection of its own: none of its blocks decoded already by the scans above.
  const fresh = openIncident(path, { readonly: true });
  const kindSets: (readonly string[] | null)[] = [["kv.post", "kv.notify"], ["batch.decode"], ["kv.poll", "kv.post"], null, ["no.such.kind"]];
  const alone = kindSets.map((kinds) => {
    const seen: string[] = [];
    scanEvents(db, kinds === null ? {} : { kinds }, (ev) => void seen.push(`${ev.seq} ${ev.kind} ${ev.room}`));
    return seen;
  });
  const readers = kindSets.map(recorder);
  const decode = DecodedBlock.prototype.decode;
  let decodes = 0;
  DecodedBlock.prototype.decode = function (this: DecodedBlock, stored: Uint8Array) {
    decodes++;
    return decode.call(this, stored);
  };
  try {
    readBlocksOnce(fresh, readers);
  } finally {
    DecodedBlock.prototype.decode = decode;
  }
  readers.forEach((r, i) => assert.deepEqual(r.seen, alone[i], `reader ${i} (${kindSets[i]?.join(", ") ?? "every kind"})`));
  assert.ok(alone[0]!.length > 0 && alone[1]!.length > 0);
  const blocks = db.prepare("SELECT count(*) FROM event_blocks").pluck().get() as number;
  // A reader of every kind makes the pass read every block.
  assert.ok(blocks >= 2 && decodes === blocks, `${decodes} decodes for ${blocks} blocks`);
  db.close();
  fresh.close();
});
