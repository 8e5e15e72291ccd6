// The probe record schema (ingest/formats/probe/schema.ts) at the reader's
// boundary: every documented form of a field is read, a field of the wrong
// shape is left out with its file and line instead of being read as an
// impossible number, and docs/evidence.md's field table is the schema's.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { decodeAs } from "../../analyzer/events/decode.js";
import { analyzeIncident } from "../../analyzer/rules/index.js";
import { renderProbeFieldDocs } from "../../ingest/formats/probe/fieldDocs.js";
import { iterateEvents } from "../../store/read/events.js";
import { listSources } from "../../store/read/sources.js";
import { buildIncident } from "../rules/incidentBuilder.js";
import { lines } from "../rules/logLines.js";
import { probe, type Rank } from "../rules/probeLines.js";

const D0: Rank = { host: "d0", role: "decode", tp: 0 };
const ROOM = "5830149913321000001";
const DOCS = new URL("../../../docs/evidence.md", import.meta.url);

test("docs/evidence.md lists every probe field as the schema declares it", () => {
  const doc = readFileSync(DOCS, "utf8");
  assert.match(doc, /<!-- probe-fields -->/);
  assert.equal(renderProbeFieldDocs(doc), doc, "run `npm run docs:templates` after changing the probe schema");
});

test("a HiCache load's layers written as the range [first, end) is a load of layers up to end, never one layer", async () => {
  const text = lines(
    probe(0, D0, "config", { backend: "mooncake", version: "0.5.10", index_k_dtype: "bf16", page_size: 64, hicache: true, overlap: true }),
    probe(1, D0, "kv.alloc", { buffer: "kv", pages: [[0, 4]] }, ROOM),
    probe(1.1, D0, "hicache.load", { slot: 1, layers: [0, 61], pages: [[0, 4]] }, ROOM),
    probe(1.2, D0, "hicache.layer", { slot: 1, layer: 0 }),
    probe(1.25, D0, "hicache.wait", { slot: 1, layer: 0, accessor: "get_kv_buffer" }),
    probe(1.3, D0, "kernel.read", { buffer: "index_k", layer: 2, pages: [[0, 4]], consumer: 1, path: "ragged" }, ROOM),
  );
  const db = await buildIncident([{ path: "d0/probe-tp0.jsonl", text }]);
  const load = [...iterateEvents(db)].map((e) => decodeAs(e, "hicache.load")).find((e) => e !== undefined)!;
  assert.deepEqual([load.layers, load.firstLayer], [61, 0]);
  const report = analyzeIncident(db);
  const read = report.findings.find((f) => f.rule === "hicache-ungated-read" && f.verdict === "violated")!;
  assert.match(read.explanation, /with 1\/61 layers loaded/);
  db.close();
});

test("a field of the wrong shape is left out and named with its line; the record and the file's other lines stay", async () => {
  const text = lines(
    probe(1, D0, "kv.alloc", { buffer: "kv", pages: [[44, 40]] }, ROOM),
    probe(2, D0, "kv.timeout", { state: "Waiting", after_s: 300 }, ROOM),
    probe(3, D0, "kv.free", { buffer: "kv", pages: [[40, 44]] }, ROOM),
  );
  const db = await buildIncident([{ path: "d0/probe-tp0.jsonl", text }]);
  const events = [...iterateEvents(db)];
  assert.deepEqual(events.map((e) => e.kind), ["kv.alloc", "kv.timeout", "kv.free"]);
  const [alloc, timeout, free] = events;
  assert.deepEqual([alloc!.pageLo, alloc!.attrs?.pages], [null, undefined], "no page range made of [44, 40)");
  assert.equal(timeout!.state, null);
  assert.equal(timeout!.attrs?.after_s, 300, "the record's other fields are kept");
  assert.deepEqual([free!.pageLo, free!.pageHi], [40, 44]);
  const [source] = listSources(db);
  const errors = source!.errors as { line: number; message: string }[];
  assert.deepEqual(errors.map((e) => e.line), [1, 2]);
  assert.match(errors[0]!.message, /^probe kv\.alloc field pages \[\[44,40\]\]: a page range is \[first, end\) with first ≤ end; left out/);
  assert.match(errors[1]!.message, /^probe kv\.timeout field state "Waiting"/);
  db.close();
});
