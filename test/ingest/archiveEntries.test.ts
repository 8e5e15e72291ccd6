// An archive with one entry that is unsafe (a `../` or absolute name, a link)
// or unreadable (a compression kvrewind does not read) keeps every other
// entry, before and after it, and names the refused one; nothing is written
// outside the ingest's own temporary folder. An archive with no files is
// reported as empty, not as binary content.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { gzipSync } from "node:zlib";
import * as tar from "tar-stream";
import yazl from "yazl";
import { ingest } from "../../ingest/pipeline.js";
import type { SourceSummary } from "../../ingest/sourceSummaries.js";
import { bootstrappedPrefillLog, decodeBatchLog, tempDir } from "./bundle.js";
import { KVREWIND_CLI } from "../kvrewindCli.js";

const MAIN = KVREWIND_CLI;

/** What an evil entry would hold: lines of their own, so that a count shows whether any of them landed. */
const EVIL = bootstrappedPrefillLog(7, 7);

interface ZipEntrySpec {
  name: string;
  content: string;
  /** A symbolic link: `content` is its target. */
  symlink?: boolean;
  /** Stored under this compression method number instead of deflate (93 is Zstandard, which yauzl does not read). */
  method?: number;
}

/**
 * A zip as yazl writes it, then patched where yazl will not write what a
 * hostile or unusual archive holds: each name is written under a placeholder
 * of its length (yazl refuses `..` and absolute names) and replaced in the
 * local and central headers; a `method` is set in both headers.
 */
async function zipOf(entries: ZipEntrySpec[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  const placeholders = entries.map((e, i) => `${String(i).padStart(e.name.length, "q")}`);
  for (const [i, e] of entries.entries()) {
    zip.addBuffer(Buffer.from(e.content), placeholders[i]!, { compress: e.method === undefined, ...(e.symlink && { mode: 0o120777 }) });
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  const bytes = Buffer.concat(chunks);
  for (const [i, e] of entries.entries()) {
    const placeholder = Buffer.from(placeholders[i]!);
    for (const [signature, nameAt, methodAt] of [[0x04034b50, 30, 8], [0x02014b50, 46, 10]] as const) {
      const at = headerOf(bytes, signature, nameAt, placeholder);
      bytes.write(e.name, at + nameAt, "latin1");
      if (e.method !== undefined) bytes.writeUInt16LE(e.method, at + methodAt);
    }
  }
  return bytes;
}

/** The offset of the header with `signature` whose name (at `nameAt`) is `name`. */
function headerOf(bytes: Buffer, signature: number, nameAt: number, name: Buffer): number {
  for (let at = bytes.indexOf(name); at >= 0; at = bytes.indexOf(name, at + 1)) {
    const start = at - nameAt;
    if (start >= 0 && bytes.readUInt32LE(start) === signature) return start;
  }
  throw new Error(`no header for ${name.toString()}`);
}

async function tarOf(entries: (Partial<tar.Header> & { name: string; content?: string })[]): Promise<Buffer> {
  const pack = tar.pack();
  for (const { content, ...header } of entries) pack.entry(header, content ?? "");
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => !d.isDirectory())
    .map((d) => relative(dir, join(d.parentPath, d.name)))
    .sort();
}

/**
 * Ingests `archive` (written at `<root>/in/deep/<name>`) with the system's
 * temporary directory set to `<root>/tmp`, so that a name climbing out of
 * the ingest's extraction folder would land under `root`, where the test
 * looks for it.
 */
async function ingestArchive(root: string, name: string, archive: Buffer): Promise<{ sources: SourceSummary[]; path: string; eventsTotal: number }> {
  const path = join(root, "in/deep", name);
  mkdirSync(join(root, "in/deep"), { recursive: true });
  mkdirSync(join(root, "tmp"));
  writeFileSync(path, archive);
  const before = process.env.TMPDIR;
  process.env.TMPDIR = join(root, "tmp");
  try {
    const summary = await ingest({ db: join(root, "i.db"), paths: [path] });
    return { sources: summary.sources, path, eventsTotal: summary.eventsTotal };
  } finally {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
  }
}

/** [entry, status, events or reason] of each source, in entry order. */
function outcomes(archivePath: string, sources: SourceSummary[]): [string, string, number | string][] {
  return sources
    .map((s): [string, string, number | string] => [s.path.slice(archivePath.length + 1), s.status, s.status === "ingested" ? s.events : s.reason!])
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

test("a zip with a ../ entry, a symbolic link and an entry it cannot decompress among good logs: every good entry lands, each bad one is named", async () => {
  const root = tempDir("zip-unsafe");
  const { sources, path, eventsTotal } = await ingestArchive(root, "bundle.zip", await zipOf([
    { name: "d0/decode-tp0.log", content: decodeBatchLog(3, 0) },
    { name: "../evil.log", content: EVIL },
    { name: `${root}/escaped.log`, content: EVIL },
    { name: "p0/link-tp1.log", content: "../../../outside/secret.log", symlink: true },
    { name: "p0/prefill-tp2.log", content: bootstrappedPrefillLog(4, 2), method: 93 },
    { name: "d1/decode-tp1.log", content: decodeBatchLog(5, 1) },
    { name: "p1/prefill-tp0.log", content: bootstrappedPrefillLog(2, 0) },
  ]));
  assert.deepEqual(outcomes(path, sources), [
    ["../evil.log", "refused", "unsafe entry name ('..' in the path): not unpacked"],
    [`${root}/escaped.log`, "refused", "unsafe entry name (absolute path): not unpacked"],
    ["d0/decode-tp0.log", "ingested", 3],
    ["d1/decode-tp1.log", "ingested", 5],
    ["p0/link-tp1.log", "refused", "a symbolic link: links are not followed, only regular files are read"],
    ["p0/prefill-tp2.log", "refused", "could not be read (unsupported compression method: 93); not ingested"],
    ["p1/prefill-tp0.log", "ingested", 2],
  ]);
  assert.equal(eventsTotal, 10, "the good entries' lines, and none of the refused ones'");
  assert.deepEqual(filesUnder(root), ["i.db", "i.db-shm", "i.db-wal", "in/deep/bundle.zip"].filter((f) => existsSync(join(root, f))), "nothing written outside the extraction folder, which is gone");
  assert.equal(existsSync(join(root, "escaped.log")), false);
});

test("a .tar.gz with ../, absolute, symbolic-link and hard-link entries among good logs: every good entry lands, each bad one is named", async () => {
  const root = tempDir("tgz-unsafe");
  const tarball = await tarOf([
    { name: "./d0/decode-tp0.log", content: decodeBatchLog(3, 0) },
    { name: "../evil.log", content: EVIL },
    { name: "d0/../../../evil-too.log", content: EVIL },
    { name: `${root}/escaped.log`, content: EVIL },
    { name: "p0/prefill-tp3.log", type: "symlink", linkname: "../../../../outside/secret.log" },
    { name: "p0/prefill-tp4.log", type: "link", linkname: "d0/decode-tp0.log" },
    { name: "p0/fifo", type: "fifo" },
    { name: "./p0/prefill-tp1.log", content: bootstrappedPrefillLog(6, 1) },
  ]);
  const { sources, path, eventsTotal } = await ingestArchive(root, "bundle.tar.gz", gzipSync(tarball));
  assert.deepEqual(outcomes(path, sources), [
    ["../evil.log", "refused", "unsafe entry name ('..' in the path): not unpacked"],
    [`${root}/escaped.log`, "refused", "unsafe entry name (absolute path): not unpacked"],
    ["d0/../../../evil-too.log", "refused", "unsafe entry name ('..' in the path): not unpacked"],
    ["d0/decode-tp0.log", "ingested", 3],
    ["p0/fifo", "refused", "a fifo, not a regular file: not read"],
    ["p0/prefill-tp1.log", "ingested", 6],
    ["p0/prefill-tp3.log", "refused", "a symbolic link to ../../../../outside/secret.log: links are not followed, only regular files are read"],
    ["p0/prefill-tp4.log", "refused", "a hard link to d0/decode-tp0.log: links are not followed, only regular files are read"],
  ]);
  assert.equal(eventsTotal, 9);
  assert.deepEqual(filesUnder(root), ["i.db", "i.db-shm", "i.db-wal", "in/deep/bundle.tar.gz"].filter((f) => existsSync(join(root, f))));
  assert.equal(existsSync(join(root, "escaped.log")), false);
});

test("the ingest command names the refused entry and exits 3: the incident is not a clean read", async () => {
  const root = tempDir("cli-unsafe");
  writeFileSync(join(root, "bundle.tar"), await tarOf([{ name: "../evil.log", content: EVIL }, { name: "d0/decode-tp1.log", content: decodeBatchLog(4, 1) }]));
  const run = spawnSync(process.execPath, [MAIN, "ingest", "bundle.tar", "--db", "i.db"], { cwd: root, encoding: "utf8" });
  assert.equal(run.status, 3, run.stderr);
  assert.match(run.stdout, /^i\.db: ingested 1 of 2 inputs \(4 lines\); 4 events \(4 added\)\n {2}1 rank, 1 host \(\w+\); /m);
  assert.match(run.stdout, /^refused 1 input:\n  bundle\.tar:\.\.\/evil\.log: unsafe entry name \('\.\.' in the path\): not unpacked$/m);
  assert.equal(run.stderr, "kvrewind: not read: bundle.tar:../evil.log: refused (unsafe entry name ('..' in the path): not unpacked)\n");
  assert.equal(existsSync(join(root, "..", "evil.log")), false);
});

test("an empty .tar.gz, .tar and .zip are each reported as an empty archive, not as binary content", async () => {
  const root = tempDir("empty-archives");
  mkdirSync(join(root, "nothing"));
  // As people make them: GNU tar of an empty folder (one `./` entry) and of no files at all (only the end blocks).
  execFileSync("tar", ["-czf", join(root, "folder.tar.gz"), "-C", join(root, "nothing"), "."]);
  execFileSync("tar", ["-czf", join(root, "none.tar.gz"), "-T", "/dev/null"]);
  execFileSync("tar", ["-cf", join(root, "none.tar"), "-T", "/dev/null"]);
  const zip = new yazl.ZipFile();
  zip.end();
  const parts: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) parts.push(c);
  writeFileSync(join(root, "none.zip"), Buffer.concat(parts));
  writeFileSync(join(root, "d0-decode-tp0.log"), decodeBatchLog(2, 0));
  const summary = await ingest({ db: join(root, "i.db"), paths: ["folder.tar.gz", "none.tar.gz", "none.tar", "none.zip", "d0-decode-tp0.log"].map((f) => join(root, f)) });
  assert.deepEqual(outcomes(root, summary.sources), [
    ["d0-decode-tp0.log", "ingested", 2],
    ["folder.tar.gz", "skipped", "an empty tgz archive: no files in it"],
    ["none.tar", "skipped", "an empty tar archive: no files in it"],
    ["none.tar.gz", "skipped", "an empty tgz archive: no files in it"],
    ["none.zip", "skipped", "an empty zip archive: no files in it"],
  ]);
});
