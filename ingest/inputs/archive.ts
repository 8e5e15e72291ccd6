// The archives incident bundles come in, told by their content, not their
// name: tar (ustar magic at offset 257), gzip (0x1f 0x8b; a gzipped tar is a
// .tgz), and zip (a local file header `PK\x03\x04`, or the end record of an
// empty one). Entries are read one at a time as streams; names come back as
// they are written in the archive, and `entryPath` makes them plain relative
// paths (`./p0/x.log`, as `tar -C dir .` writes, is `p0/x.log`).

import { closeSync, openSync, readSync, createReadStream, utimesSync } from "node:fs";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { constants as zlibConstants, createGunzip, gunzipSync } from "node:zlib";
import * as tar from "tar-stream";
import yauzl from "yauzl";

export type Container = "gzip" | "tar" | "zip" | "plain";
export type ArchiveKind = "tar" | "tgz" | "zip";

const HEAD_BYTES = 512;

/** What a file's first bytes say it is. */
export function sniffHead(head: Buffer): Container {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return "gzip";
  if (head.length >= 262 && head.toString("latin1", 257, 262) === "ustar") return "tar";
  if (head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && ((head[2] === 3 && head[3] === 4) || (head[2] === 5 && head[3] === 6))) return "zip";
  return "plain";
}

function readHead(path: string, bytes: number): Buffer {
  const fd = openSync(path, "r");
  try {
    const head = Buffer.alloc(bytes);
    return head.subarray(0, readSync(fd, head, 0, bytes, 0));
  } finally {
    closeSync(fd);
  }
}

export function sniffFile(path: string): Container {
  return sniffHead(readHead(path, HEAD_BYTES));
}

/** The archive a file is, a gzipped tar included; null for anything else (a plain file, a gzipped log). */
export function archiveKindOf(path: string): ArchiveKind | null {
  const kind = sniffFile(path);
  if (kind === "tar" || kind === "zip") return kind;
  if (kind !== "gzip") return null;
  let inner: Buffer;
  try {
    // The head of a longer stream: flush what it holds instead of asking for the end.
    inner = gunzipSync(readHead(path, 64 * 1024), { finishFlush: zlibConstants.Z_SYNC_FLUSH });
  } catch {
    return null;
  }
  return sniffHead(inner) === "tar" ? "tgz" : null;
}

/** An archive's name without its archive extension: the folder its entries are unpacked into. */
export function archiveStem(name: string): string {
  return name.replace(/\.(tar\.gz|tgz|tar|zip|gz)$/i, "") || name;
}

/**
 * An entry name as a relative path: `\` read as `/`, empty and `.` segments
 * dropped. "" for the archive's root (`./`). Absolute paths and `..` are
 * kept for the caller to refuse or neutralise.
 */
export function entryPath(name: string): string {
  const unified = name.replace(/\\/g, "/");
  const lead = unified.startsWith("/") ? "/" : "";
  return lead + unified.split("/").filter((s) => s !== "" && s !== ".").join("/");
}

export interface ArchiveEntry {
  /** The name as the archive writes it. */
  name: string;
  /** "file" for regular files; "directory"; else what the entry is (symlink, link, character-device, …). */
  type: string;
  /** The content; read it (or leave it) before asking for the next entry. */
  content: AsyncIterable<Buffer>;
  /** When the entry's file was last written, as the archive records it (undated lines are timed by it). */
  mtime?: Date;
}

/** The entries of an archive in order. A damaged archive throws where the damage is read. */
export function readArchive(path: string, kind: ArchiveKind): AsyncGenerator<ArchiveEntry> {
  return kind === "zip" ? zipEntries(path) : tarEntries(path, kind === "tgz");
}

async function* tarEntries(path: string, gzipped: boolean): AsyncGenerator<ArchiveEntry> {
  const extract = tar.extract();
  const source = createReadStream(path);
  const feeding = gzipped ? pipeline(source, createGunzip(), extract) : pipeline(source, extract);
  // A failure surfaces through the entry loop (and the await below); mark it handled now.
  feeding.catch(() => undefined);
  try {
    for await (const entry of extract) {
      const type = entry.header.type === "contiguous-file" ? "file" : (entry.header.type ?? "file");
      const mtime = entry.header.mtime;
      yield { name: entry.header.name, type, content: entry as AsyncIterable<Buffer>, ...(mtime !== undefined ? { mtime } : {}) };
      entry.resume();
    }
    await feeding;
  } finally {
    source.destroy();
    extract.destroy();
  }
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

async function* zipEntries(path: string): AsyncGenerator<ArchiveEntry> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true, autoClose: false, strictFileNames: false, validateEntrySizes: true }, (err, z) => (err ? reject(err) : resolve(z))),
  );
  try {
    for (;;) {
      const entry = await new Promise<yauzl.Entry | null>((resolve, reject) => {
        const onEntry = (e: yauzl.Entry) => (zip.off("end", onEnd), zip.off("error", onError), resolve(e));
        const onEnd = () => (zip.off("entry", onEntry), zip.off("error", onError), resolve(null));
        const onError = (err: Error) => (zip.off("entry", onEntry), zip.off("end", onEnd), reject(err));
        zip.once("entry", onEntry).once("end", onEnd).once("error", onError);
        zip.readEntry();
      });
      if (!entry) return;
      const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
      if (entry.fileName.endsWith("/")) {
        yield { name: entry.fileName, type: "directory", content: emptyStream() };
        continue;
      }
      if (mode === S_IFLNK) {
        yield { name: entry.fileName, type: "symlink", content: emptyStream() };
        continue;
      }
      const content = await new Promise<Readable>((resolve, reject) => zip.openReadStream(entry, (err, s) => (err ? reject(err) : resolve(s))));
      yield { name: entry.fileName, type: "file", content, mtime: entry.getLastModDate() };
      content.resume();
      await new Promise<void>((resolve, reject) => (content.readableEnded ? resolve() : content.once("end", resolve).once("error", reject)));
    }
  } finally {
    zip.close();
  }
}

async function* emptyStream(): AsyncGenerator<Buffer> {}

/** Gives an unpacked file its entry's modification time (a file with no dated line is timed by it). */
export function keepEntryTime(path: string, entry: ArchiveEntry): void {
  if (entry.mtime !== undefined && !Number.isNaN(entry.mtime.getTime())) utimesSync(path, entry.mtime, entry.mtime);
}
