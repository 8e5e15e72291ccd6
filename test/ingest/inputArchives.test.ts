// Bundles as people make them, through `kvrewind ingest`: a tar made with
// `tar -czf bundle.tgz -C dir .` (every entry under `./`), a .zip, and an
// archive of per-host archives, one level deep. Host and role come from the
// paths (`<host>/<role>-tp<N>.log`), so they show where each entry landed.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import * as tar from "tar-stream";
import yazl from "yazl";
import { ingest } from "../../ingest/pipeline.js";
import type { SourceSummary } from "../../ingest/sourceSummaries.js";
import { bootstrappedPrefillLog, decodeBatchLog, T0, tempDir, writeTree } from "./bundle.js";

async function tarOf(files: Record<string, string | Buffer>): Promise<Buffer> {
  const pack = tar.pack();
  for (const [name, content] of Object.entries(files)) pack.entry({ name }, Buffer.from(content));
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

async function zipOf(files: Record<string, string | Buffer>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of Object.entries(files)) zip.addBuffer(Buffer.from(content), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/** Path (below `dir`), host, role and event count of each ingested source. */
const ingested = (dir: string, sources: SourceSummary[]) =>
  sources
    .filter((s) => s.status === "ingested")
    .map((s) => [s.path.slice(dir.length + 1), s.host, s.role, s.events])
    .sort();

test("a .tgz made with `tar -C dir .`: entries under ./ are read with their folders", async () => {
  const dir = tempDir("dot-tar");
  writeTree(join(dir, "bundle"), { "d0/decode-tp0.log": decodeBatchLog(3, 0), "p0/prefill-tp1.log": bootstrappedPrefillLog(2, 1) });
  execFileSync("tar", ["-czf", join(dir, "bundle.tgz"), "-C", join(dir, "bundle"), "."]);
  assert.match(execFileSync("tar", ["-tzf", join(dir, "bundle.tgz")], { encoding: "utf8" }), /^\.\/d0\/decode-tp0\.log$/m, "GNU tar roots the entries at ./");
  const summary = await ingest({ db: join(dir, "i.db"), paths: [join(dir, "bundle.tgz")] });
  assert.deepEqual(ingested(dir, summary.sources), [
    ["bundle.tgz:d0/decode-tp0.log", "d0", "decode", 3],
    ["bundle.tgz:p0/prefill-tp1.log", "p0", "prefill", 2],
  ]);
});

test("a .zip bundle is read like a tar", async () => {
  const dir = tempDir("zip");
  writeFileSync(join(dir, "bundle.zip"), await zipOf({ "incident/d1/decode-tp2.log": decodeBatchLog(4, 2), "incident/p1/prefill-tp0.log": bootstrappedPrefillLog(1, 0) }));
  const summary = await ingest({ db: join(dir, "i.db"), paths: [join(dir, "bundle.zip")] });
  assert.deepEqual(ingested(dir, summary.sources), [
    ["bundle.zip:incident/d1/decode-tp2.log", "d1", "decode", 4],
    ["bundle.zip:incident/p1/prefill-tp0.log", "p1", "prefill", 1],
  ]);
});

test("archives inside an archive are unpacked into folders named after them; one level deeper is refused, named", async () => {
  const dir = tempDir("nested");
  // Per-host archives with flat entries: the host is only in the archive's name.
  const p0 = await tarOf({ "prefill-tp0.log": bootstrappedPrefillLog(2, 0) });
  const d0 = await zipOf({ "decode-tp0.log": decodeBatchLog(3, 0) });
  const deeper = await tarOf({ "inner.tar": await tarOf({ "decode-tp5.log": decodeBatchLog(1, 5) }) });
  writeFileSync(join(dir, "bundle.tar"), await tarOf({ "hosts/p0.tar": p0, "hosts/d0.zip": d0, "too-deep.tar": deeper }));
  const summary = await ingest({ db: join(dir, "i.db"), paths: [join(dir, "bundle.tar")] });
  assert.deepEqual(ingested(dir, summary.sources), [
    ["bundle.tar:hosts/d0.zip:decode-tp0.log", "d0", "decode", 3],
    ["bundle.tar:hosts/p0.tar:prefill-tp0.log", "p0", "prefill", 2],
  ]);
  const refused = summary.sources.filter((s) => s.status === "refused");
  assert.equal(refused.length, 1);
  assert.match(refused[0]!.path, /bundle\.tar:too-deep\.tar:inner\.tar$/);
  assert.match(refused[0]!.reason!, /^an archive inside 2 archives: not unpacked/);
});

test("an archive's file with no dated line: its records are timeless, not timed by the entry's modification time", async () => {
  const dir = tempDir("archive-mtime");
  // Written 90 s after the first decode line, inside the incident: still no time of the traceback's own.
  const crashed = new Date(T0 / 1000 + 90_000);
  const traceback = [
    "Exception in thread Thread-3 (bootstrap_thread):",
    "Traceback (most recent call last):",
    '  File "/usr/lib/python3.12/threading.py", line 1075, in _bootstrap_inner',
    "AssertionError: First message should be b'NixlMsgGuard'. Foreign traffic?",
  ].join("\n");
  const pack = tar.pack();
  pack.entry({ name: "./d0/decode-tp0.log", mtime: new Date(T0 / 1000 + 200_000) }, decodeBatchLog(3, 0));
  pack.entry({ name: "./p0/prefill-tp3.stderr", mtime: crashed }, `${traceback}\n`);
  pack.finalize();
  const parts: Buffer[] = [];
  for await (const chunk of pack) parts.push(chunk as Buffer);
  writeFileSync(join(dir, "bundle.tar"), Buffer.concat(parts));
  const summary = await ingest({ db: join(dir, "i.db"), paths: [join(dir, "bundle.tar")] });
  const stderr = summary.sources.find((s) => s.path.endsWith("p0/prefill-tp3.stderr"))!;
  assert.deepEqual([stderr.status, stderr.events, stderr.inferred, stderr.ranks], ["ingested", 1, 1, ["prefill/tp3"]]);
  assert.equal(stderr.first, null);
  assert.match(stderr.timeOrigin!, /timeless \(time unknown\)/);
});
