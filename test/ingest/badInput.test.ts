import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { ingest } from "../../ingest/pipeline.js";
import type { SourceSummary } from "../../ingest/sourceSummaries.js";
import { REPO_ROOT } from "../sharedIncident.js";
import { eventRows, logStamp, probeTs, T0, tarOf, tempDir, withDb, writeTree } from "./bundle.js";

function decodeLog(lines: number, tp = 0): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    out.push(
      `${logStamp(T0 + i * 1000)} DP0 TP${tp}] Decode batch, #running-req: ${i}, #token: 181234, token usage: 0.43, pre-allocated usage: 0.06, #prealloc-req: 3, #transfer-req: 9, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 3712.55, #queue-req: 0`,
    );
  }
  return out.join("\n") + "\n";
}

function prefillLog(lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) out.push(`${logStamp(T0 + i * 1000 + 500)} TP0] room=${8972542885242963296n + BigInt(i)} is bootstrapped`);
  return out.join("\n") + "\n";
}

function find(sources: SourceSummary[], path: string): SourceSummary {
  const s = sources.find((x) => x.path === path);
  assert.ok(s, `${path} not in ${sources.map((x) => x.path).join(", ")}`);
  return s;
}

test("archives: .tar.gz entries and .gz files are read by content, identity from the entry paths", async () => {
  const dir = tempDir("archives");
  const tgz = gzipSync(await tarOf({ "incident/d0/decode-tp0.log": decodeLog(3), "incident/p0/prefill-tp0.log": prefillLog(2) }));
  const probe = `{"ts": ${probeTs(T0 + 1500)}, "host": "d0", "role": "decode", "tp": 0, "ev": "kv.alloc", "room": 8972542885242963296, "pages": [[0, 64]], "buffer": "index_k"}\n`;
  writeTree(dir, {
    "in/bundle.tar.gz": tgz,
    // Named like plain text, but gzip inside: content decides.
    "in/probe.txt": gzipSync(probe),
    "in/d1/decode-tp1.log.gz": gzipSync(decodeLog(2, 1)).subarray(0, 40),
    "in/weights.bin": Buffer.concat([Buffer.from([0, 0, 0, 1]), Buffer.alloc(64, 7)]),
  });
  const db = join(dir, "i.db");
  const summary = await ingest({ db, paths: [join(dir, "in")] });
  const s = summary.sources;
  const decode = find(s, `${join(dir, "in/bundle.tar.gz")}:incident/d0/decode-tp0.log`);
  assert.deepEqual([decode.status, decode.host, decode.role, decode.events], ["ingested", "d0", "decode", 3]);
  const prefill = find(s, `${join(dir, "in/bundle.tar.gz")}:incident/p0/prefill-tp0.log`);
  assert.deepEqual([prefill.status, prefill.host, prefill.role, prefill.events], ["ingested", "p0", "prefill", 2]);
  const p = find(s, join(dir, "in/probe.txt"));
  assert.deepEqual([p.status, p.format, p.events], ["ingested", "probe-jsonl", 1]);
  const cut = find(s, join(dir, "in/d1/decode-tp1.log.gz"));
  assert.equal(cut.status, "refused");
  assert.match(cut.reason!, /truncated or corrupt gzip/);
  const bin = find(s, join(dir, "in/weights.bin"));
  assert.equal(bin.status, "refused");
  assert.equal(summary.eventsTotal, 6);
  withDb(db, (h) => assert.equal(eventRows(h).find((r) => r.kind === "kv.alloc")?.room, "8972542885242963296"));
});

test("a truncated .tar.gz: the entries before the cut are ingested, the archive is reported", async () => {
  const dir = tempDir("cut-tgz");
  const tarball = await tarOf({ "d0/decode-tp0.log": decodeLog(4), "p0/prefill-tp0.log": prefillLog(3000) });
  const cut = gzipSync(tarball).subarray(0, Math.floor(gzipSync(tarball).length * 0.6));
  writeTree(dir, { "cut.tar.gz": cut });
  const summary = await ingest({ db: join(dir, "i.db"), paths: [join(dir, "cut.tar.gz")] });
  const archive = find(summary.sources, join(dir, "cut.tar.gz"));
  assert.equal(archive.status, "refused");
  assert.match(archive.reason!, /truncated/);
  const first = find(summary.sources, `${join(dir, "cut.tar.gz")}:d0/decode-tp0.log`);
  assert.deepEqual([first.status, first.events], ["ingested", 4]);
  assert.equal(
    summary.sources.some((x) => x.path.endsWith("p0/prefill-tp0.log") && x.status === "ingested"),
    false,
  );
});

test("invalid UTF-8, CRLF line ends, an empty file and a 10 MB line, side by side", async () => {
  const dir = tempDir("bad");
  const long = `${logStamp(T0 + 5000)} TP0] ${"x".repeat(10 * 1024 * 1024)}`;
  writeTree(dir, {
    "p0/prefill-bad-utf8.log": Buffer.concat([
      Buffer.from(`${logStamp(T0)} TP0] room=11 is bootstrapped\n`),
      Buffer.from(`${logStamp(T0 + 1000)} TP0] peer name `),
      Buffer.from([0xc3, 0x28, 0xff]),
      Buffer.from(` garbled\n${logStamp(T0 + 2000)} TP0] room=12 is bootstrapped\n`),
    ]),
    "d0/decode-crlf.log": decodeLog(2).replace(/\n/g, "\r\n"),
    "p0/prefill-empty.log": "",
    "p0/prefill-long.log": `${logStamp(T0 + 4000)} TP0] room=13 is bootstrapped\n${long}\n${logStamp(T0 + 6000)} TP0] room=14 is bootstrapped\n`,
  });
  const db = join(dir, "i.db");
  const summary = await ingest({ db, paths: [dir] });
  const utf8 = find(summary.sources, join(dir, "p0/prefill-bad-utf8.log"));
  assert.deepEqual([utf8.status, utf8.lines, utf8.events], ["ingested", 3, 3]);
  assert.deepEqual(utf8.errors, [{ line: 2, message: "invalid UTF-8 on 1 line(s), read as U+FFFD (first at line 2)" }]);
  const crlf = find(summary.sources, join(dir, "d0/decode-crlf.log"));
  assert.deepEqual([crlf.status, crlf.events, crlf.unparsed, crlf.errorCount], ["ingested", 2, 0, 0]);
  assert.equal(find(summary.sources, join(dir, "p0/prefill-empty.log")).status, "skipped");
  const longSource = find(summary.sources, join(dir, "p0/prefill-long.log"));
  assert.deepEqual([longSource.status, longSource.lines, longSource.events], ["ingested", 3, 3]);
  withDb(db, (h) => {
    const rows = eventRows(h);
    const garbled = rows.find((r) => r.source.endsWith("bad-utf8.log") && r.line === 2)!;
    assert.equal(garbled.text, `${logStamp(T0 + 1000)} TP0] peer name \uFFFD(\uFFFD garbled`);
    for (const r of rows.filter((x) => x.source.endsWith("crlf.log"))) {
      assert.equal(r.kind, "batch.decode");
      assert.equal(r.text.includes("\r"), false);
    }
    const big = rows.find((r) => r.source.endsWith("long.log") && r.line === 2)!;
    assert.equal(big.text.length, long.length);
    // Its prefix is read; its 10 MB message is kept whole, not interpreted.
    assert.equal(big.kind, "log.message");
  });
});

test("a path that does not exist is an input error naming it; nothing is written", async () => {
  const dir = tempDir("missing");
  const db = join(dir, "i.db");
  await assert.rejects(ingest({ db, paths: [join(dir, "nope.log")] }), (e: Error & { exitCode?: number }) => {
    assert.equal(e.exitCode, 2);
    assert.match(e.message, /nope\.log: no such file or directory/);
    return true;
  });
});

// Pod log folders are links (/var/log/containers/*.log → /var/log/pods/…): copied off the node, a link may point at nothing, or back up the tree.
test("links to nothing, back up the tree, across it and out of it: the dangling one refused by name, every file read once", async () => {
  const dir = tempDir("links");
  writeTree(dir, { "in/d0/decode-tp0.log": decodeLog(3), "in/p0/prefill-tp0.log": prefillLog(2), "elsewhere/d1/decode-tp1.log": decodeLog(4, 1) });
  symlinkSync(join(dir, "gone/decode-tp1.log"), join(dir, "in/d0/decode-tp1.log"));
  symlinkSync("..", join(dir, "in/d0/again"));
  symlinkSync(join(dir, "in/p0"), join(dir, "in/p0-latest"));
  symlinkSync(join(dir, "elsewhere/d1"), join(dir, "in/d1"));
  const summary = await ingest({ db: join(dir, "i.db"), paths: [join(dir, "in")] });
  const dangling = find(summary.sources, join(dir, "in/d0/decode-tp1.log"));
  assert.equal(dangling.status, "refused");
  assert.equal(dangling.reason, `a link to ${join(dir, "gone/decode-tp1.log")}, which does not exist: not read`);
  assert.deepEqual(
    summary.sources.filter((s) => s.status === "ingested").map((s) => [s.path, s.host, s.role, s.events]),
    [
      [join(dir, "in/d0/decode-tp0.log"), "d0", "decode", 3],
      [join(dir, "in/d1/decode-tp1.log"), "d1", "decode", 4],
      [join(dir, "in/p0/prefill-tp0.log"), "p0", "prefill", 2],
    ],
  );
  assert.equal(summary.eventsTotal, 9);
});

// logrotate's copytruncate truncates a log the server keeps writing at its old offset: the file starts with a hole of NULs. A crash can leave one mid-file.
test("a log with a hole of NUL bytes at its start or in its middle is read around the hole; a file of NULs only is skipped", async () => {
  const dir = tempDir("nul-holes");
  const lines = decodeLog(6).split("\n");
  writeTree(dir, {
    "in/d0/decode-tp0.log": Buffer.concat([Buffer.alloc(300_000), Buffer.from(lines.slice(0, 3).join("\n") + "\n")]),
    "in/d1/decode-tp1.log": Buffer.concat([Buffer.from(lines.slice(0, 2).join("\n") + "\n"), Buffer.alloc(5_000), Buffer.from(lines.slice(2).join("\n"))]),
    "in/d2/decode-tp2.log": Buffer.alloc(70_000),
  });
  const summary = await ingest({ db: join(dir, "i.db"), paths: [join(dir, "in")] });
  const start = find(summary.sources, join(dir, "in/d0/decode-tp0.log"));
  assert.deepEqual([start.status, start.events, start.errorCount], ["ingested", 3, 1]);
  assert.match(start.errors[0]!.message, /^300000 NUL byte\(s\) dropped \(first at line 1\)/);
  const middle = find(summary.sources, join(dir, "in/d1/decode-tp1.log"));
  assert.deepEqual([middle.status, middle.events, middle.errors.map((e) => e.line)], ["ingested", 6, [3]]);
  const holeOnly = find(summary.sources, join(dir, "in/d2/decode-tp2.log"));
  assert.equal(holeOnly.status, "skipped");
  assert.match(holeOnly.reason!, /only NUL bytes/);
  withDb(join(dir, "i.db"), (h) => {
    const third = eventRows(h).find((r) => r.source.endsWith("decode-tp1.log") && r.line === 3);
    assert.equal(third?.kind, "batch.decode");
  });
});

test("a log and a probe file saved with a UTF-8 byte order mark: the first line is read as the rest are", async () => {
  const dir = tempDir("bom");
  const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
  const probe = `{"ts": ${probeTs(T0 + 1500)}, "host": "d0", "role": "decode", "tp": 0, "ev": "kv.alloc", "room": 8972542885242963296, "pages": [[0, 64]], "buffer": "index_k"}\n`;
  writeTree(dir, { "in/d0/decode-tp0.log": Buffer.concat([BOM, Buffer.from(decodeLog(3))]), "in/d0/probe.jsonl": Buffer.concat([BOM, Buffer.from(probe)]) });
  const summary = await ingest({ db: join(dir, "i.db"), paths: [join(dir, "in")] });
  const log = find(summary.sources, join(dir, "in/d0/decode-tp0.log"));
  assert.deepEqual([log.status, log.events, log.unparsed, log.errorCount], ["ingested", 3, 0, 0]);
  const p = find(summary.sources, join(dir, "in/d0/probe.jsonl"));
  assert.deepEqual([p.status, p.format, p.events, p.errorCount], ["ingested", "probe-jsonl", 1, 0]);
  withDb(join(dir, "i.db"), (h) => assert.deepEqual(eventRows(h).filter((r) => r.line === 1).map((r) => r.kind).sort(), ["batch.decode", "kv.alloc"]));
});

test("xz: a .tar.xz bundle (sosreport's packing) and a rotated .log.xz, made by the xz tool, are read like their gzip forms; a cut one is refused by name", async () => {
  const dir = tempDir("xz");
  // test/ingest/packed/: `tar -cf bundle.tar d0 p0 && xz -9 bundle.tar`, `xz decode-tp1.log.1` (XZ Utils 5), the lines of decodeLog(3), prefillLog(2) and decodeLog(2, 1).
  const packed = join(REPO_ROOT, "test/ingest/packed");
  const bundle = readFileSync(join(packed, "bundle.tar.xz"));
  writeTree(dir, {
    "in/bundle.tar.xz": bundle,
    "in/d1/decode-tp1.log.1.xz": readFileSync(join(packed, "decode-tp1.log.1.xz")),
    "in/cut.tar.xz": bundle.subarray(0, bundle.length - 40),
  });
  const summary = await ingest({ db: join(dir, "i.db"), paths: [join(dir, "in")] });
  const decode = find(summary.sources, `${join(dir, "in/bundle.tar.xz")}:d0/decode-tp0.log`);
  assert.deepEqual([decode.status, decode.host, decode.role, decode.events], ["ingested", "d0", "decode", 3]);
  const prefill = find(summary.sources, `${join(dir, "in/bundle.tar.xz")}:p0/prefill-tp0.log`);
  assert.deepEqual([prefill.status, prefill.host, prefill.role, prefill.events], ["ingested", "p0", "prefill", 2]);
  const rotated = find(summary.sources, join(dir, "in/d1/decode-tp1.log.1.xz"));
  assert.deepEqual([rotated.status, rotated.host, rotated.events], ["ingested", "d1", 2]);
  assert.match(find(summary.sources, join(dir, "in/cut.tar.xz")).reason!, /^truncated or corrupt xz \(.+\); not ingested$/);
});

test("compressed files unpack within the limit an ingest is given, together: the one that passes it is refused by name", async () => {
  const dir = tempDir("unpack-limit");
  writeTree(dir, {
    "in/d0/decode-tp0.log.2.gz": gzipSync(decodeLog(2)),
    // ~300 bytes a line: 40 lines unpack to ~12 KiB from a few hundred bytes.
    "in/d0/decode-tp0.log.1.gz": gzipSync(decodeLog(40)),
    "in/d0/decode-tp0.log": decodeLog(1),
  });
  const limit = 2 * decodeLog(2).length;
  const summary = await ingest({ db: join(dir, "i.db"), paths: [join(dir, "in")], maxUnpackedBytes: limit });
  assert.deepEqual([find(summary.sources, join(dir, "in/d0/decode-tp0.log.2.gz")).status, find(summary.sources, join(dir, "in/d0/decode-tp0.log")).status], ["ingested", "ingested"]);
  const bomb = find(summary.sources, join(dir, "in/d0/decode-tp0.log.1.gz"));
  assert.equal(bomb.status, "refused");
  assert.match(bomb.reason!, /^unpacks to more than \d+ B, what the compressed files may unpack to together \(a decompression bomb\?\); not ingested$/);
  const unlimited = await ingest({ db: join(dir, "j.db"), paths: [join(dir, "in")] });
  assert.equal(find(unlimited.sources, join(dir, "in/d0/decode-tp0.log.1.gz")).events, 40, "no limit unless one is given");
});

test("zstd: a .tar.zst bundle and a rotated .log.zst are read like their gzip forms; bzip2 and 7-Zip are refused naming how to unpack them", async () => {
  const dir = tempDir("zstd");
  const { compress } = await import("zstd-napi");
  const tarball = await tarOf({ "incident/d0/decode-tp0.log": decodeLog(3), "incident/p0/prefill-tp0.log": prefillLog(2) });
  writeTree(dir, {
    "in/bundle.tar.zst": compress(tarball),
    "in/d1/decode-tp1.log.1.zst": compress(Buffer.from(decodeLog(2, 1))),
    // Their magic bytes and a little of what follows: refused by content, whatever their names.
    "in/old.tar.7z": Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c, 0x00, 0x04, 0xe6, 0xd6, 0xb4, 0x46, 0x02, 0x00, 0x21, 0x01]),
    "in/older.dat": Buffer.concat([Buffer.from("BZh91AY&SY"), Buffer.from([0x8f, 0x1c, 0x02, 0x00, 0x00, 0x01])]),
  });
  const summary = await ingest({ db: join(dir, "i.db"), paths: [join(dir, "in")] });
  const decode = find(summary.sources, `${join(dir, "in/bundle.tar.zst")}:incident/d0/decode-tp0.log`);
  assert.deepEqual([decode.status, decode.host, decode.role, decode.events], ["ingested", "d0", "decode", 3]);
  const prefill = find(summary.sources, `${join(dir, "in/bundle.tar.zst")}:incident/p0/prefill-tp0.log`);
  assert.deepEqual([prefill.status, prefill.host, prefill.role, prefill.events], ["ingested", "p0", "prefill", 2]);
  const rotated = find(summary.sources, join(dir, "in/d1/decode-tp1.log.1.zst"));
  assert.deepEqual([rotated.status, rotated.host, rotated.events], ["ingested", "d1", 2]);
  assert.match(find(summary.sources, join(dir, "in/old.tar.7z")).reason!, /^7-Zip-compressed: not unpacked \(gzip, zstd, xz, tar and zip are\); .*`7z x`/);
  assert.match(find(summary.sources, join(dir, "in/older.dat")).reason!, /^bzip2-compressed: .*`bunzip2`/);
});

test("a log saved as UTF-16 with its byte order mark (PowerShell's `>`) is read as its text; bytes that only start like one are not", async () => {
  const dir = tempDir("utf16");
  const text = decodeLog(3).replace(/\n/g, "\r\n");
  const be = Buffer.from(`\ufeff${prefillLog(2)}`, "utf16le").swap16();
  writeTree(dir, {
    "in/d0/decode-tp0.log": Buffer.from(`\ufeff${text}`, "utf16le"),
    "in/p0/prefill-tp0.log": be,
    "in/d1/weights.bin": Buffer.concat([Buffer.from([0xff, 0xfe, 0x01, 0x00, 0x07, 0x00]), Buffer.alloc(64, 3)]),
  });
  const summary = await ingest({ db: join(dir, "i.db"), paths: [join(dir, "in")] });
  const le = find(summary.sources, join(dir, "in/d0/decode-tp0.log"));
  assert.deepEqual([le.status, le.events, le.unparsed, le.errorCount], ["ingested", 3, 0, 0]);
  const big = find(summary.sources, join(dir, "in/p0/prefill-tp0.log"));
  assert.deepEqual([big.status, big.events, big.unparsed, big.errorCount], ["ingested", 2, 0, 0]);
  assert.equal(find(summary.sources, join(dir, "in/d1/weights.bin")).status, "refused");
  withDb(join(dir, "i.db"), (h) => assert.equal(eventRows(h).filter((r) => r.kind === "batch.decode").length, 3));
});
