// From the paths a user names to plain files the sniff and load can read:
// directories are walked recursively (in name order), and gzip, zstd, xz, tar
// and zip content — told by its magic bytes, not its name (ingest/inputs/archive.ts) —
// is unpacked, and UTF-16 text transcoded (ingest/inputs/utf16.ts), into a
// private temporary directory (so that every source can
// later be read in step with the others, which an archive stream does not
// allow). An archive inside an archive is unpacked too, into a folder named
// after it (`p0.tar.gz` → `p0/`, where host and role are read from); one more
// level down is not (a bundle is not a tree of archives). An entry that is
// unsafe (an absolute or `..` name, a link, a device) or cannot be read is
// refused by its name, and the entries after it are still read.
// Host and role are read from a file's path inside the bundle it came from
// (ingest/inputs/machines.ts): a named folder holding only files is a
// machine's folder and keeps its name; one holding folders is the bundle's
// top and does not (nor does the one folder an archive wraps its bundle in).

import { createWriteStream, existsSync, lstatSync, readdirSync, readlinkSync, realpathSync, rmSync, statSync, utimesSync } from "node:fs";
import { basename, join, posix, resolve, sep } from "node:path";
import { pipeline } from "node:stream/promises";
import { transcodeUtf16, utf16Of } from "./utf16.js";
import { archiveStem } from "../../domain/archiveNames.js";
import { formatBytes } from "../../domain/byteSize.js";
import { archiveKindOf, entryPath, keepEntryTime, readArchive, readHead, refusedEntry, sniffFile, type ArchiveKind, type Compression } from "./archive.js";
import { COMPRESSED_SUFFIX, UnpackLimitError, unpackTo } from "./compression.js";
import { sosReportHost } from "./sosReport.js";
import { InputError } from "./pathIdentity.js";

export interface InputFile {
  /** As shown and stored in sources.path: the path given, a file under a directory, or `archive:entry`. */
  displayPath: string;
  /** A plain file with the content (the original, or an unpacked copy). */
  plainPath: string;
  /** The path host and role are read from: the path inside its bundle, or an archive entry's own name. */
  identityPath: string;
  /** Named by the user (not found in a directory or an archive). */
  named: boolean;
  /** Which of the paths the user named the file came from. */
  bundle: number;
}

export interface RejectedInput {
  displayPath: string;
  reason: string;
  /** "refused" (the default): something was there and was not read; "skipped": there was nothing to read. */
  status?: "refused" | "skipped";
}

export interface ExpandedInputs {
  files: InputFile[];
  rejected: RejectedInput[];
}

export function assertPathsExist(paths: readonly string[]): void {
  for (const p of paths) {
    if (!existsSync(p)) throw new InputError(`${p}: no such file or directory`);
  }
}

/** How many archives an archive may sit inside and still be unpacked. */
export const MAX_ARCHIVE_NESTING = 1;

export class InputExpander {
  private counter = 0;
  readonly files: InputFile[] = [];
  readonly rejected: RejectedInput[] = [];

  /** Bytes unpacked so far, against `maxUnpackedBytes`. */
  private unpackedBytes: number;

  /**
   * `maxUnpackedBytes`: most bytes the compressed files may unpack to, together (a server's guard against decompression
   * bombs); `unpackedBefore`: what the inputs' archives already unpacked to against the same limit (an upload's, unpacked by the server).
   */
  constructor(
    private readonly tempDir: string,
    private readonly maxUnpackedBytes = Infinity,
    private readonly unpackedBefore = 0,
  ) {
    this.unpackedBytes = unpackedBefore;
  }

  private bundles = 0;

  /** A path the user named. */
  async add(path: string): Promise<void> {
    const bundle = this.bundles++;
    const st = statSync(path);
    // A folder of folders is the bundle's top and names no machine, unless it is a sos report, one machine's.
    const name = basename(resolve(path));
    if (st.isDirectory()) await this.walk(path, holdsFolders(path) && sosReportHost(name) === undefined ? "" : name, bundle);
    else if (st.isFile()) await this.addFile(path, path, path, true, 0, bundle);
    else this.rejected.push({ displayPath: path, reason: "not a regular file or directory" });
  }

  /**
   * A folder of a named one, its files read as at `rel` inside the bundle.
   * One entry that cannot be read (a link to nothing, no permission) is
   * refused by its name and the walk goes on. A link to a folder inside the
   * named one is not followed (its files are read by their own path), nor is
   * one back to a folder being walked (a loop); one to a folder elsewhere is.
   */
  private async walk(dir: string, rel: string, bundle: number, top = realpathSync(dir), above: ReadonlySet<string> = new Set()): Promise<void> {
    const walking = new Set(above).add(realpathSync(dir));
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const inBundle = rel === "" ? name : posix.join(rel, name);
      try {
        const st = statSync(path);
        if (st.isDirectory()) {
          const target = realpathSync(path);
          const readElsewhere = walking.has(target) || (lstatSync(path).isSymbolicLink() && isWithin(top, target));
          if (!readElsewhere) await this.walk(path, inBundle, bundle, top, walking);
        } else if (st.isFile()) await this.addFile(path, path, inBundle, false, 0, bundle);
        else this.rejected.push({ displayPath: path, reason: "not a regular file or directory" });
      } catch (e) {
        this.rejected.push({ displayPath: path, reason: unreadableEntry(path, e as NodeJS.ErrnoException) });
      }
    }
  }

  private tempPath(name: string): string {
    return join(this.tempDir, `${++this.counter}-${basename(name).replace(/[^\w.-]/g, "_").slice(-80)}`);
  }

  /** `depth`: how many archives the file was found in. */
  private async addFile(file: string, displayPath: string, identityPath: string, named: boolean, depth: number, bundle: number): Promise<void> {
    const archive = archiveKindOf(file);
    const container = archive ? null : sniffFile(file);
    if (archive) await this.addArchive(file, archive, displayPath, identityPath, depth, bundle);
    else if (container === "gzip" || container === "zstd" || container === "xz") await this.addCompressed(file, container, displayPath, identityPath, named, depth, bundle);
    else this.files.push({ displayPath, plainPath: this.asUtf8(file, displayPath), identityPath, named, bundle });
  }

  /** The file itself, or where its UTF-16 text was written as UTF-8 (ingest/inputs/utf16.ts). */
  private asUtf8(file: string, displayPath: string): string {
    const encoding = utf16Of(readHead(file, 512));
    if (encoding === null) return file;
    const out = this.tempPath(displayPath);
    transcodeUtf16(file, encoding, out);
    const { mtime } = statSync(file);
    utimesSync(out, mtime, mtime);
    return out;
  }

  /**
   * A compressed file that is not read as an archive as it streams (a rotated
   * `*.log.gz`, a `.log.zst`, a `.tar.zst`): its content unpacked, then read as
   * what it is (a tar inside is unpacked as a tar).
   */
  private async addCompressed(file: string, kind: Compression, displayPath: string, identityPath: string, named: boolean, depth: number, bundle: number): Promise<void> {
    const suffix = COMPRESSED_SUFFIX[kind];
    const out = this.tempPath(displayPath.replace(/\.t?(?:gz|zst|xz)$/i, ""));
    try {
      this.unpackedBytes += await unpackTo(file, kind, out, this.maxUnpackedBytes - this.unpackedBytes);
      const { mtime } = statSync(file);
      utimesSync(out, mtime, mtime);
    } catch (e) {
      rmSync(out, { force: true });
      const reason =
        e instanceof UnpackLimitError
          ? `unpacks to more than ${formatBytes(this.maxUnpackedBytes)}, what the ${this.unpackedBefore > 0 ? "upload's archives and its " : ""}compressed files may unpack to together (a decompression bomb?); not ingested`
          : `truncated or corrupt ${kind} (${(e as Error).message}); not ingested`;
      this.rejected.push({ displayPath, reason });
      return;
    }
    await this.addFile(out, displayPath, identityPath.replace(suffix, ""), named, depth, bundle);
  }

  private async addArchive(file: string, kind: ArchiveKind, archivePath: string, identityPath: string, depth: number, bundle: number): Promise<void> {
    if (depth > MAX_ARCHIVE_NESTING) {
      this.rejected.push({ displayPath: archivePath, reason: `an archive inside ${depth} archives: not unpacked (archives nested ${MAX_ARCHIVE_NESTING} deep are)` });
      return;
    }
    // Entries of a nested archive live in a folder named after it, beside it.
    const base = depth === 0 ? "" : posix.join(posix.dirname(identityPath.replace(/\\/g, "/")), archiveStem(posix.basename(identityPath)));
    const unpacked: { out: string; name: string }[] = [];
    let entries = 0;
    // An entry whose content failed: its own refusal if the archive reads on, part of the archive's if the archive broke there.
    let failed: { name: string; message: string } | undefined;
    const refuseFailed = () => {
      if (failed) this.rejected.push({ displayPath: `${archivePath}:${failed.name}`, reason: `could not be read (${failed.message}); not ingested` });
      failed = undefined;
    };
    try {
      for await (const entry of readArchive(file, kind)) {
        refuseFailed();
        if (entry.type === "directory") continue;
        entries++;
        const name = entryPath(entry.name);
        const refusal = refusedEntry(entry);
        if (refusal !== undefined) {
          this.rejected.push({ displayPath: `${archivePath}:${name}`, reason: refusal });
          continue;
        }
        // The temporary name is the entry's last segment, made safe: nothing is written outside the temporary folder.
        const out = this.tempPath(name);
        try {
          await pipeline(entry.content, createWriteStream(out));
        } catch (e) {
          rmSync(out, { force: true });
          failed = { name, message: (e as Error).message };
          continue;
        }
        keepEntryTime(out, entry);
        unpacked.push({ out, name });
      }
      refuseFailed();
      if (entries === 0) this.rejected.push({ displayPath: archivePath, status: "skipped", reason: `an empty ${kind} archive: no files in it` });
    } catch (e) {
      const where = failed !== undefined ? `its entry ${failed.name} was cut and is not ingested` : "the entries before the damage were read";
      this.rejected.push({ displayPath: archivePath, reason: `truncated or corrupt ${kind} (${(e as Error).message}); ${where}` });
    }
    const inBundle = depth === 0 ? bundlePaths(unpacked.map((u) => u.name), archiveStem(posix.basename(identityPath.replace(/\\/g, "/")))) : undefined;
    for (const [i, { out, name }] of unpacked.entries()) {
      await this.addFile(out, `${archivePath}:${name}`, inBundle?.[i] ?? (base ? posix.join(base, name) : name), false, depth + 1, bundle);
    }
  }
}

function isWithin(folder: string, path: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

/** Why an entry of a folder could not be read: a link names its target. */
function unreadableEntry(path: string, e: NodeJS.ErrnoException): string {
  const link = lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() ? readlinkSync(path) : undefined;
  if (link !== undefined && (e.code === "ENOENT" || e.code === "ELOOP")) return `a link to ${link}, which ${e.code === "ELOOP" ? "loops" : "does not exist"}: not read`;
  return `could not be read (${e.message}); not ingested`;
}

/** True when a folder holds a folder: the top of a bundle, not one machine's files. */
function holdsFolders(dir: string): boolean {
  return readdirSync(dir, { withFileTypes: true }).some((e) => e.isDirectory());
}

/**
 * An archive's entries as paths inside the bundle: entries all at its top
 * are one machine's, read as in a folder named after the archive
 * (`node-a.tar.gz` → `node-a/`); one folder wrapping a bundle of folders
 * (`tar czf incident.tgz incident/`) is dropped; other layouts stay as written.
 */
function bundlePaths(names: readonly string[], stem: string): string[] {
  if (names.length === 0) return [];
  if (names.every((n) => !n.includes("/"))) return names.map((n) => posix.join(stem, n));
  const top = names[0]!.split("/")[0]!;
  const wrapped = names.every((n) => n.startsWith(`${top}/`));
  // A sos report's folder names its machine: kept.
  if (wrapped && sosReportHost(top) === undefined && names.some((n) => n.split("/").length > 2)) return names.map((n) => n.slice(top.length + 1));
  return [...names];
}

export async function expandInputs(paths: readonly string[], tempDir: string, maxUnpackedBytes?: number, unpackedBefore?: number): Promise<ExpandedInputs> {
  assertPathsExist(paths);
  const expander = new InputExpander(tempDir, maxUnpackedBytes, unpackedBefore);
  for (const p of paths) await expander.add(p);
  return { files: expander.files, rejected: expander.rejected };
}
