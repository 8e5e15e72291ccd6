// The page-dump input format (ingest/formats/pageDump, docs/evidence.md §4a):
// an index found by its content, its page bytes read from the files it names
// beside it (also inside an archive), stored compressed with the index
// record's provenance; a page that cannot be read is an error of its line and
// every other page is kept. Page contents checked by hand against
// test/bundles/make_page_dumps.py.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { detectFormat } from "../../ingest/formats/index.js";
import { ingest } from "../../ingest/pipeline.js";
import { allPages } from "../../store/pages.js";
import { eventsOfKind } from "../../store/read/events.js";
import { listSources } from "../../store/read/sources.js";
import { tarOf, tempDir, withDb, writeTree } from "./bundle.js";

const BUNDLE = fileURLToPath(new URL("../../../test/bundles/page-dumps/", import.meta.url));
const bundleFile = (p: string) => readFileSync(join(BUNDLE, p));

test("a page-dump index is told by its content; a checksum dump and a probe record are not one", () => {
  assert.equal(detectFormat(bundleFile("p0/prefill-pages.jsonl").toString("utf8")).name, "page-dump-jsonl");
  assert.equal(detectFormat(bundleFile("p0/checksums.jsonl").toString("utf8")).name, "checksum-jsonl");
  assert.equal(detectFormat('{"ts": 1781186760.5, "ev": "kv.post", "room": 1, "file": "x.bin", "length": 8448, "dtype": "fp8"}\n').name, "probe-jsonl");
});

test("pages inside a tar: read from the entry the index names, 19-digit rooms kept, bytes as written", async () => {
  const dir = tempDir("pages-tar");
  const tar = await tarOf({ "p0/prefill-pages.jsonl": bundleFile("p0/prefill-pages.jsonl"), "p0/prefill-pages.bin": bundleFile("p0/prefill-pages.bin") });
  writeFileSync(join(dir, "dump.tar"), tar);
  const db = join(dir, "incident.db");
  const summary = await ingest({ db, paths: [join(dir, "dump.tar")] });
  const bin = summary.sources.find((s) => s.path.endsWith("prefill-pages.bin"))!;
  assert.equal(bin.status, "ingested");
  assert.match(bin.reason!, /page bytes read through the page-dump index .*dump\.tar:p0\/prefill-pages\.jsonl/);
  withDb(db, (h) => {
    const pages = allPages(h);
    assert.equal(pages.length, 5);
    assert.ok(pages.every((p) => p.file === `${join(dir, "dump.tar")}:p0/prefill-pages.bin` && p.bytes.length === 8448));
    const events = eventsOfKind(h, "page.dump");
    assert.deepEqual(events.map((e) => e.room), ["8972542885242963296", "8972542885242963296", "7301152698145511823", "6917529027641081857", "5764607523034234881"]);
    assert.deepEqual(events.map((e) => [e.layer, e.pageLo, e.attrs?.pos, e.attrs?.dtype, e.attrs?.layout]), [
      [0, 3, 0, "fp8", "data_then_scales"], [0, 4, 1, "fp8", "data_then_scales"], [0, 7, 0, "fp8", "data_then_scales"],
      [0, 8, 0, "fp8", "data_then_scales"], [0, 9, 0, "fp8", "data_then_scales"],
    ]);
    // OLD's pos 0 (seed 1): row 0 is FP8[(i + 1) % 6] = 0.5, -2, 2, 1.5, 0, 1 …; its scale 2/64 = 0.03125 (0x3d000000 LE).
    const first = pages[0]!.bytes;
    assert.deepEqual([...first.subarray(0, 6)], [0x30, 0xc0, 0x40, 0x3c, 0x00, 0x38]);
    assert.deepEqual([...first.subarray(8192, 8196)], [0x00, 0x00, 0x00, 0x3d]);
    // Row 1 starts 3 further along the table: FP8[(3 + i + 1) % 6] = 1.5, 0, 1 …
    assert.deepEqual([...first.subarray(128, 131)], [0x3c, 0x00, 0x38]);
  });
});

test("a page whose file is missing or cut is an error naming the line, the file and the offset; the other pages are kept", async () => {
  const dir = tempDir("pages-cut");
  const index = bundleFile("p0/prefill-pages.jsonl").toString("utf8").trimEnd().split("\n");
  const moved = index[1]!.replace('"file": "prefill-pages.bin"', '"file": "absent.bin"');
  writeTree(dir, {
    "p0/prefill-pages.jsonl": [index[0], moved, ...index.slice(2)].join("\n") + "\n",
    // Cut 3,000 bytes into the fifth page.
    "p0/prefill-pages.bin": bundleFile("p0/prefill-pages.bin").subarray(0, 4 * 8448 + 3000),
  });
  const db = join(dir, "incident.db");
  const summary = await ingest({ db, paths: [join(dir, "p0")] });
  const src = summary.sources.find((s) => s.format === "page-dump-jsonl")!;
  assert.equal(src.errorCount, 2);
  assert.deepEqual(src.errors.map((e) => e.line), [2, 5]);
  assert.match(src.errors[0]!.message, /page not read: .*p0\/absent\.bin: not among the inputs/);
  assert.match(src.errors[1]!.message, /page not read: .*p0\/prefill-pages\.bin: the page at offset 33792 \(8448 B\) is cut: the file ends 3000 B into it/);
  withDb(db, (h) => assert.deepEqual(allPages(h).map((p) => p.line), [1, 3, 4]));
});

test("each file of page bytes is a source with its provenance: format, size, sha256, pages read, the index's host", async () => {
  const dir = tempDir("pages-sources");
  const db = join(dir, "incident.db");
  const summary = await ingest({ db, paths: [BUNDLE] });
  // The .npy's fifth page is cut (test/bundles/README.md): 4 of its 5 pages are read.
  const expected = [
    { file: "p0/prefill-pages.bin", format: "page-bytes-bin", host: "p0", pages: 5, index: "p0/prefill-pages.jsonl" },
    { file: "d0/decode-pages.npy", format: "page-bytes-npy", host: "d0", pages: 4, index: "d0/decode-pages.jsonl" },
    { file: "d0/decode-late.safetensors", format: "page-bytes-safetensors", host: "d0", pages: 1, index: "d0/decode-pages.jsonl" },
  ];
  const rows = withDb(db, (h) => listSources(h));
  for (const e of expected) {
    const content = bundleFile(e.file);
    const sha256 = createHash("sha256").update(content).digest("hex");
    const row = rows.find((s) => s.path.endsWith(e.file));
    assert.ok(row, `${e.file} has a sources row`);
    assert.deepEqual(
      { status: row.status, format: row.format, host: row.host, bytes: row.bytes, sha256: row.sha256, pages: row.pages, events: row.events },
      { status: "complete", format: e.format, host: e.host, bytes: content.length, sha256, pages: e.pages, events: 0 },
    );
    assert.match(row.reason!, new RegExp(`page-dump index .*${e.index.replace(".", "\\.")}$`));
    const s = summary.sources.find((x) => x.path.endsWith(e.file))!;
    assert.deepEqual([s.status, s.format, s.sha256, s.pages, s.bytes], ["ingested", e.format, sha256, e.pages, content.length]);
  }
  assert.equal(rows.filter((s) => s.format.startsWith("page-bytes-")).length, 3);
  // A second ingest of the same bundle adds no row: the indexes are already in the incident.
  await ingest({ db, paths: [BUNDLE] });
  assert.equal(withDb(db, (h) => listSources(h).length), rows.length);
});
