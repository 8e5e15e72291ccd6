// A batch waiting for the merge is kept packed (store/rows.ts packBatch): it
// unpacks to the batch it was, every column (NaN for NULL included), string,
// attrs shape, tag, value and JSON value, on the rows of real log lines.

import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseTimeZone } from "../../ingest/inputs/pathIdentity.js";
import { sniffSource } from "../../ingest/inputs/sniff.js";
import { SourceRows } from "../../ingest/load/loadStream.js";
import { packBatch, unpackBatch, type RowBatch } from "../../store/rows.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** A batch as plain values, its typed arrays as arrays (NaN kept: deepEqual tells NaN from null). */
function plain(b: RowBatch): unknown {
  const a = b.attrs;
  return {
    length: b.length,
    numbers: Array.from(b.numbers),
    stringRefs: Array.from(b.stringRefs),
    strings: b.strings,
    attrs: { shape: Array.from(a.shape), start: Array.from(a.start), shapes: a.shapes, tags: Array.from(a.tags), values: Array.from(a.values), json: a.json },
    texts: b.texts,
  };
}

test("a packed batch unpacks to the batch it was", () => {
  for (const file of ["test/bundles/crashed-scheduler/p0/prefill-tp0.log", "fixtures/incidents/stale-slot-reuse/p0/probe-tp0.jsonl"]) {
    const path = join(ROOT, file);
    const sniff = sniffSource(path, parseTimeZone("UTC"));
    const source = { sourceId: 1, plainPath: path, displayPath: file, format: sniff.format!, wrapper: sniff.wrapper, dating: null, tzGiven: false, tzOffsetMinutes: 0, bytes: sniff.bytes };
    // Batches of 17 rows: several per file, the last one short.
    const rows = new SourceRows(source, 17, 64 * 1024);
    let batches = 0;
    for (let last = false; !last; batches++) {
      const out = rows.next();
      last = out.last;
      const before = plain(out.batch);
      assert.deepEqual(plain(unpackBatch(packBatch(out.batch))), before, `${file}, batch ${batches}`);
    }
    assert.ok(batches > 2, `${file}: ${batches} batches`);
  }
});
