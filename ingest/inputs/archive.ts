// The archives incident bundles come in, told by their content, not their
// name: tar (ustar magic at offset 257), gzip (0x1f 0x8b; a gzipped tar is a
// .tgz), zstd (0x28 0xb5 0x2f 0xfd, RFC 8878 §3.1.1), xz (0xfd "7zXZ" 0x00,
// the .xz file format 1.2.1 §2.1.1.1; sosreport's .tar.xz, logrotate's
// `compresscmd xz`); a .tar.zst or .tar.xz is unpacked to its tar first; and
// zip (a local file header `PK\x03\x04`, or the end
// record of an empty one). Other packings (bzip2, 7-Zip, RAR, LZ4) are
// named by their magic bytes so that their refusal says how to unpack them. Entries are read one at a time as streams; names come back as
// they are written in the archive, and `entryPath` makes them plain relative
// paths (`./p0/x.log`, as `tar -C dir .` writes, is `p0/x.log`). An entry that
// is unsafe (`refusedEntry`) or unreadable is the caller's to name and skip:
// the entries after it are still read, except where the damage is in the
// archive's own stream (a cut tar), which has no next entry to find.

import { closeSync, openSync, readSync, createReadStream, statSync, utimesSync } from "node:fs";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { constants as zlibConstants, createGunzip, gunzipSync } from "node:zlib";
import * as tar from "tar-stream";
import yauzl from "yauzl";

export type Container = "gzip" | "zstd" | "xz" | "tar" | "zip" | "plain";
/** The packings unpacked whole before what they hold is read (ingest/inputs/inputs.ts). */
export type Compression = "gzip" | "zstd" | "xz";
export type ArchiveKind = "tar" | "tgz" | "zip";

const HEAD_BYTES = 512;

/** What a file's first bytes say it is. */
export function sniffHead(head: Buffer): Container {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return "gzip";
  if (startsWith(head, ZSTD_MAGIC)) return "zstd";
  if (startsWith(head, XZ_MAGIC)) return "xz";
  if (head.length >= 262 && head.toString("latin1", 257, 262) === "ustar") return "tar";
  if (head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && ((head[2] === 3 && head[3] === 4) || (head[2] === 5 && head[3] === 6))) return "zip";
  return "plain";
}

const ZSTD_MAGIC = [0x28, 0xb5, 0x2f, 0xfd];
const XZ_MAGIC = [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00];

function startsWith(head: Buffer, magic: readonly number[]): boolean {
  return head.length >= magic.length && magic.every((b, i) => head[i] === b);
}

/** Packings read by none of the above, by their magic bytes (each format's own specification), and the tool that unpacks them. */
const OTHER_PACKINGS: readonly { name: string; magic: readonly number[]; unpack: string }[] = [
  { name: "bzip2", magic: [0x42, 0x5a, 0x68], unpack: "bunzip2" },
  { name: "7-Zip", magic: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], unpack: "7z x" },
  { name: "RAR", magic: [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07], unpack: "unrar x" },
  { name: "LZ4", magic: [0x04, 0x22, 0x4d, 0x18], unpack: "lz4 -d" },
];

/** Why a file packed in a way kvrewind does not unpack is not read, naming the packing and its tool; undefined for others. */
export function otherPacking(head: Buffer): string | undefined {
  // bzip2's "BZh" is followed by its block size, '1' to '9'.
  const packing = OTHER_PACKINGS.find((p) => startsWith(head, p.magic) && (p.name !== "bzip2" || (head[3]! >= 0x31 && head[3]! <= 0x39)));
  return packing && `${packing.name}-compressed: not unpacked (gzip, zstd, xz, tar and zip are); unpack it with \`${packing.unpack}\` and give its files`;
}

/** The first `bytes` bytes of a file (fewer when it is shorter). */
export function readHead(path: string, bytes: number): Buffer {
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

const GZIP_HEAD_BYTES = 64 * 1024;
const TAR_BLOCK = 512;

/**
 * An empty tar is nothing but its end marker, two or more blocks of zeros;
 * named as a tar, such content is that rather than a binary file. (Unnamed,
 * zeros are as likely a log that a crash left zero-filled.)
 */
function isEmptyTar(content: Buffer, name: string): boolean {
  return namedAsTar(name) && content.length >= 2 * TAR_BLOCK && content.length % TAR_BLOCK === 0 && content.every((b) => b === 0);
}

function namedAsTar(name: string): boolean {
  return /\.(tar|tar\.gz|tgz|tar\.zst|tzst|tar\.xz|txz)$/i.test(name);
}

/** The archive a file is, a gzipped tar included; null for anything else (a plain file, a gzipped log). */
export function archiveKindOf(path: string): ArchiveKind | null {
  const kind = sniffFile(path);
  if (kind === "tar" || kind === "zip") return kind;
  if (kind === "plain") {
    if (!namedAsTar(path)) return null;
    const size = statSync(path).size;
    return size <= GZIP_HEAD_BYTES && isEmptyTar(readHead(path, size), path) ? "tar" : null;
  }
  // A zstd or xz file is unpacked whole first (ingest/inputs/inputs.ts), a tar inside it then read as a tar.
  if (kind === "zstd" || kind === "xz") return null;
  let inner: Buffer;
  const head = readHead(path, GZIP_HEAD_BYTES);
  try {
    // The head of a longer stream: flush what it holds instead of asking for the end.
    inner = gunzipSync(head, { finishFlush: zlibConstants.Z_SYNC_FLUSH });
  } catch {
    return null;
  }
  if (sniffHead(inner) === "tar") return "tgz";
  return head.length < GZIP_HEAD_BYTES && isEmptyTar(inner, path) ? "tgz" : null;
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
  /** Where a link entry points, as the archive writes it. */
  linkTarget?: string;
  /**
   * The content; read it (or leave it) before asking for the next entry. An
   * entry that cannot be read (an unsupported compression, a bad size)
   * throws here; a zip's next entry can still be asked for after that.
   */
  content: AsyncIterable<Buffer>;
  /** When the entry's file was last written, as the archive records it (undated lines are timed by it). */
  mtime?: Date;
}

/**
 * Why a name may not be written under an extraction folder: it is absolute,
 * climbs out with `..`, or holds a NUL or control character; undefined for a
 * plain relative name.
 */
export function unsafeEntryName(name: string): string | undefined {
  if (name.includes("\0")) return "contains a NUL byte";
  const unified = name.replace(/\\/g, "/");
  if (unified.startsWith("/") || /^[a-zA-Z]:/.test(unified)) return "absolute path";
  const segments = unified.split("/").filter((s) => s !== "" && s !== ".");
  if (segments.includes("..")) return "'..' in the path";
  if (segments.some((s) => /[\u0000-\u001f]/.test(s))) return "a control character in the name";
  return undefined;
}

/**
 * Why an entry is not unpacked: an unsafe name, or anything but a regular
 * file (a link is never followed: it could point outside the bundle).
 * Undefined for a regular file with a safe name, and for a directory, which
 * holds nothing to read.
 */
export function refusedEntry(entry: ArchiveEntry): string | undefined {
  if (entry.type === "directory") return undefined;
  const unsafe = unsafeEntryName(entry.name);
  if (unsafe !== undefined) return `unsafe entry name (${unsafe}): not unpacked`;
  if (entry.type === "symlink" || entry.type === "link") {
    const kind = entry.type === "symlink" ? "a symbolic link" : "a hard link";
    return `${kind}${entry.linkTarget ? ` to ${entry.linkTarget}` : ""}: links are not followed, only regular files are read`;
  }
  if (entry.type !== "file") return `a ${entry.type}, not a regular file: not read`;
  return undefined;
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
      const { mtime, linkname } = entry.header;
      yield { name: entry.header.name, type, content: entry as AsyncIterable<Buffer>, ...(mtime !== undefined && { mtime }), ...(linkname && { linkTarget: linkname }) };
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
  // Names are decoded here rather than by yauzl, which stops the whole archive at the first absolute or `..` name.
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true }, (err, z) => (err ? reject(err) : resolve(z))),
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
      const name = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, false);
      const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
      if (name.endsWith("/")) yield { name, type: "directory", content: emptyStream() };
      else if (mode === S_IFLNK) yield { name, type: "symlink", content: emptyStream() };
      else yield { name, type: "file", content: zipContent(zip, entry), mtime: entry.getLastModDate() };
    }
  } finally {
    zip.close();
  }
}

/** An entry's bytes, opened only when read: an entry left unread (refused) is never decompressed. */
async function* zipContent(zip: yauzl.ZipFile, entry: yauzl.Entry): AsyncGenerator<Buffer> {
  const stream = await new Promise<Readable>((resolve, reject) => zip.openReadStream(entry, (err, s) => (err ? reject(err) : resolve(s))));
  try {
    for await (const chunk of stream) yield chunk as Buffer;
  } finally {
    stream.destroy();
  }
}

async function* emptyStream(): AsyncGenerator<Buffer> {}

/** Gives an unpacked file its entry's modification time (a file with no dated line is timed by it). */
export function keepEntryTime(path: string, entry: ArchiveEntry): void {
  if (entry.mtime !== undefined && !Number.isNaN(entry.mtime.getTime())) utimesSync(path, entry.mtime, entry.mtime);
}
