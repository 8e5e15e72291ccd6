// The kernels on the replay path (issue 15): the replay hands each page-dump
// record's bytes, read through the store, to the model, whose page kernels
// recompute the dump's checksum, decode its rows and compare a decode page
// with prefill's page of the same (room, buffer, layer, pos) once both are
// dumped; time travel's state at a cursor carries those verdicts, through a
// snapshot too. Expectations by hand from test/bundles/make_page_dumps.py
// (test/bundles/README.md): OLD's decode pages 40 and 41 went to NEW (torn at
// row 37) and STALE (OLD's pos 1); HEALTHY's safetensors page is right but
// states checksum 0badc0de; the .npy's fifth page is cut.

import { after, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createModel } from "../../analyzer/model/index.js";
import { PageKernels } from "../../analyzer/model/pageKernels.js";
import type { DumpedPageInput } from "../../analyzer/model/pageKernels.js";
import { pageBytesFor, replayIncident, storedPageBytes } from "../../analyzer/replay/replay.js";
import { stateAt, timeline } from "../../analyzer/replay/timeTravel.js";
import { fp8Encode } from "../../analyzer/model/fp8.js";
import { bf16Encode } from "../../analyzer/model/bf16.js";
import { IndexKPool } from "../../analyzer/model/indexK.js";
import { ingest } from "../../ingest/pipeline.js";
import { openIncident, type IncidentDb } from "../../store/db.js";
import { eventsOfKind, iterateEvents } from "../../store/read/events.js";
import { scratchDir } from "../scratchDir.js";

const BUNDLE = fileURLToPath(new URL("../../../test/bundles/page-dumps/", import.meta.url));
const OLD = "8972542885242963296";
const NEW = "7301152698145511823";
const STALE = "6917529027641081857";
const HEALTHY = "5764607523034234881";

const open: IncidentDb[] = [];
after(() => open.forEach((db) => db.close()));

async function pageDumps(): Promise<IncidentDb> {
  const dir = scratchDir("kvrewind-page-kernels-");
  const path = join(dir, "incident.db");
  await ingest({ db: path, paths: [BUNDLE] });
  const db = openIncident(path);
  open.push(db);
  return db;
}

function recordSeq(db: IncidentDb, room: string, side: string): number {
  return eventsOfKind(db, "page.dump").find((e) => e.room === room && e.attrs?.side === side)!.seq;
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

test("the replay runs the page kernels on every dumped page: checksums recomputed, decode pages compared with prefill's byte for byte", async () => {
  const db = await pageDumps();
  const run = replayIncident(db);
  const k = run.pages;
  // 5 prefill pages (.bin), 4 of the .npy's 5 (the fifth is cut), 1 in the .safetensors.
  assert.equal(k.pages.length, 10);
  assert.deepEqual(k.disagreements().map((d) => [d.page.room, d.page.side, d.page.checksum!.value]), [[HEALTHY, "decode_recv", "0badc0de"]]);
  const pairOf = (room: string, side: string) => k.pairs().find((p) => p.decode.room === room && p.decode.side === side)!;
  assert.equal(pairOf(OLD, "decode_recv").equal, true);
  assert.equal(pairOf(HEALTHY, "decode_recv").equal, true);
  const torn = pairOf(NEW, "decode_read");
  assert.equal(torn.equal, false);
  assert.deepEqual(torn.differingRows, range(37, 64));
  assert.equal(pairOf(STALE, "decode_read").equal, false);
  // The bundle's pages are fp8 values from a table of finite encodings.
  assert.ok(k.pages.every((p) => k.verdicts.get(p)!.nonFiniteRows.length === 0));
});

test("time travel: the state at a cursor holds the dumped pages and their verdicts, and the same after a snapshot", async () => {
  const db = await pageDumps();
  // Snapshots every 3 events: the cursors below are reached from a restored snapshot.
  replayIncident(db, { snapshotEvery: 3 });
  const tornSeq = recordSeq(db, NEW, "decode_read");
  const before = stateAt(db, { seq: tornSeq - 1 });
  assert.equal(before.dumpedPages.some((d) => d.seq === tornSeq), false);
  const at = stateAt(db, { seq: tornSeq });
  const torn = at.dumpedPages.find((d) => d.seq === tornSeq)!;
  assert.deepEqual(
    { room: torn.room, side: torn.side, page: torn.page, pos: torn.pos, dtype: torn.dtype, bytes: torn.bytes, equal: torn.pair?.equal, rows: torn.pair?.differingRows, prefill: torn.pair?.prefillSeq },
    { room: NEW, side: "decode_read", page: 40, pos: 0, dtype: "fp8", bytes: 8448, equal: false, rows: range(37, 64), prefill: recordSeq(db, NEW, "prefill_store") },
  );
  const last = stateAt(db, { seq: Number.MAX_SAFE_INTEGER });
  const healthy = last.dumpedPages.find((d) => d.room === HEALTHY && d.side === "decode_recv")!;
  assert.equal(healthy.checksum!.agrees, false);
  assert.equal(healthy.checksum!.stated, "0badc0de");
  assert.equal(stateAt(db, { seq: tornSeq }, { room: NEW }).dumpedPages.every((d) => d.room === NEW), true);

  // The slow route: a fresh model over every event, each record with its bytes.
  const line = timeline(db);
  const bytes = storedPageBytes(db);
  const model = createModel(line.choice.profile, line.options);
  for (const ev of iterateEvents(db)) if (ev.seq <= tornSeq) model.apply(ev, pageBytesFor(bytes, ev));
  assert.deepEqual(at.dumpedPages, model.view().dumpedPages);
});

function fp8Page(nanRow?: number): Uint8Array {
  const pool = new IndexKPool("fp8", 1);
  const k = new Uint8Array(64 * 128).map((_, i) => fp8Encode(((i % 13) - 6) * 0.5));
  if (nanRow !== undefined) k[nanRow * 128 + 9] = 0x7f;
  pool.store(0, range(0, 64), k, range(0, 64).map((r) => 0.01 * (r + 1)));
  return pool.page(0, 0).slice();
}

function page(seq: number, side: string, bytes: Uint8Array, dtype: "fp8" | "bf16" = "fp8"): DumpedPageInput {
  return { seq, room: "1", side, buffer: "index_k", layer: 0, page: side === "prefill_store" ? 3 : 40, pos: 0, dtype, pool: side, bytes };
}

test("kernels: a decode page dumped before prefill's pairs when prefill's comes; the first prefill page of a key is the one compared", () => {
  const k = new PageKernels();
  const decode = page(1, "decode_recv", fp8Page());
  k.dump(decode);
  assert.deepEqual(k.unpaired(), [decode]);
  const prefill = page(2, "prefill_store", fp8Page());
  k.dump(prefill);
  k.dump(page(3, "prefill_store", fp8Page(5)));
  assert.deepEqual(k.unpaired(), []);
  assert.equal(k.pairFor(decode)!.prefill, prefill);
  assert.equal(k.pairFor(decode)!.equal, true);
});

test("kernels: rows that decode to no finite number — an fp8 NaN byte (0x7f), a bf16 NaN (0x7fc0) — are named", () => {
  const k = new PageKernels();
  const fp8 = page(1, "prefill_store", fp8Page(5));
  k.dump(fp8);
  assert.deepEqual(k.verdicts.get(fp8)!.nonFiniteRows, [5]);
  const bf16 = new Uint8Array(16384);
  new DataView(bf16.buffer).setUint16(2 * 256 + 6, bf16Encode(NaN), true);
  const p = page(2, "decode_recv", bf16, "bf16");
  k.dump(p);
  assert.deepEqual(k.verdicts.get(p)!.nonFiniteRows, [2]);
  // Paired with an fp8 page: other dtypes are never equal, and no rows are compared.
  assert.deepEqual([k.pairFor(p)!.equal, k.pairFor(p)!.differingRows], [false, []]);
});
