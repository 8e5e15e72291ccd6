// Placing an uploaded bundle in the incident's input folder: each form file
// under its own relative name, each archive (tar, .tgz, .zip — told by
// content, ingest/inputs/archive.ts) unpacked in its place, and an archive found
// inside an archive unpacked once more into a folder named after it (one
// level deep, as `kvrewind ingest` does). Every name must be a plain relative
// path: absolute paths, `..` segments, links and devices are refused before
// anything is written, and the caller removes the staging folder on any
// error. Two files with one name are both kept (the later one renamed) and
// the incident says so.

import { existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { open } from "node:fs/promises";
import { dirname, join, posix } from "node:path";
import { archiveStem } from "../../domain/archiveNames.js";
import { archiveKindOf, entryPath, keepEntryTime, readArchive, type ArchiveKind } from "../../ingest/inputs/archive.js";
import { MAX_ARCHIVE_NESTING } from "../../ingest/inputs/inputs.js";
import { formatBytes } from "../../domain/byteSize.js";
import { HttpError } from "./errors.js";
import { safeRelativePath, type UploadLimits } from "./upload.js";

export interface Received {
  files: number;
  bytes: number;
  /** What the upload's archives unpacked to. */
  unpacked: number;
  /** What a person should know about how the upload was placed (renamed duplicates, archives not unpacked). */
  warnings: string[];
}

/** Moves the staged form files to their names under inputDir, unpacking archives. */
export async function placeFiles(files: Express.Multer.File[], inputDir: string, limits: UploadLimits): Promise<Received> {
  if (files.length === 0) throw new HttpError(400, "the upload holds no files (form field 'files')");
  const placer = new BundlePlacer(inputDir, limits);
  const names = files.map((f) => safeRelativePath(f.originalname, "file name"));
  for (const [i, file] of files.entries()) await placer.placeFormFile(file.path, names[i]!, file.size, files.length === 1);
  if (placer.received.files === 0) throw new HttpError(400, "the upload holds no files (only empty archives)");
  return placer.received;
}

class BundlePlacer {
  readonly received: Received = { files: 0, bytes: 0, unpacked: 0, warnings: [] };

  constructor(
    private readonly inputDir: string,
    private readonly limits: UploadLimits,
  ) {}

  /** A form file: an archive unpacks where it stands (at the root when it is the whole upload), anything else moves there. */
  async placeFormFile(staged: string, name: string, size: number, alone: boolean): Promise<void> {
    const kind = archiveKindOf(staged);
    if (kind) {
      await this.unpack(staged, kind, name, alone ? "" : besideAs(name), 0);
      rmSync(staged);
      return;
    }
    const rel = this.freeName(name, "file name");
    mkdirSync(dirname(join(this.inputDir, rel)), { recursive: true });
    renameSync(staged, join(this.inputDir, rel));
    this.count(size);
  }

  private count(bytes: number): void {
    if (++this.received.files > this.limits.maxFiles) throw new HttpError(413, `too many files: at most ${this.limits.maxFiles} per upload`);
    this.received.bytes += bytes;
  }

  /** Unpacks `archive` (named `shown` in messages) into `folder`; `depth` archives enclose it. */
  private async unpack(archive: string, kind: ArchiveKind, shown: string, folder: string, depth: number): Promise<void> {
    try {
      for await (const entry of readArchive(archive, kind)) {
        const what = `entry of '${shown}'`;
        if (entry.type === "directory") {
          if (entryPath(entry.name) !== "") safeRelativePath(entry.name, what);
          continue;
        }
        if (entry.type !== "file") throw new HttpError(400, `${what} '${entry.name}' refused: a ${entry.type}, only regular files are accepted`);
        const rel = this.freeName(posix.join(folder, safeRelativePath(entry.name, what)), what);
        const dest = join(this.inputDir, rel);
        await this.write(dest, entry.content, shown);
        keepEntryTime(dest, entry);
        const nested = archiveKindOf(dest);
        if (!nested) continue;
        const nestedName = `${shown}:${rel.slice(folder ? folder.length + 1 : 0)}`;
        if (depth + 1 > MAX_ARCHIVE_NESTING) {
          this.received.warnings.push(`${nestedName}: an archive inside ${depth + 1} archives, not unpacked (archives nested ${MAX_ARCHIVE_NESTING} deep are)`);
        } else {
          await this.unpack(dest, nested, nestedName, besideAs(rel), depth + 1);
        }
        rmSync(dest);
        this.received.files--;
      }
    } catch (err) {
      if (err instanceof HttpError) throw err;
      // Messages of the archive readers; a file-system error says only its code (its message names server paths).
      const code = (err as { code?: unknown }).code;
      throw new HttpError(400, `archive '${shown}' could not be read: ${typeof code === "string" ? code : (err as Error).message}`);
    }
  }

  private async write(dest: string, content: AsyncIterable<Buffer>, shown: string): Promise<void> {
    this.count(0);
    mkdirSync(dirname(dest), { recursive: true });
    const out = await open(dest, "wx");
    try {
      for await (const chunk of content) {
        this.received.unpacked += chunk.length;
        this.received.bytes += chunk.length;
        if (this.received.unpacked > this.limits.maxExtractedBytes) {
          throw new HttpError(413, `archive '${shown}' unpacks to more than ${formatBytes(this.limits.maxExtractedBytes)}`);
        }
        await out.write(chunk);
      }
    } finally {
      await out.close();
    }
  }

  /**
   * `rel`, or when a file of that name is already placed, `name~2.ext` (then
   * ~3, …) with a warning. A name that needs a folder where a file stands (or
   * the reverse) is refused: no renaming makes it mean the same.
   */
  private freeName(rel: string, what: string): string {
    const parts = rel.split("/");
    for (let i = 1; i < parts.length; i++) {
      const prefix = parts.slice(0, i).join("/");
      const at = join(this.inputDir, prefix);
      if (existsSync(at) && !statSync(at).isDirectory()) throw new HttpError(400, `${what} '${rel}' refused: '${prefix}' is a file of the upload, not a folder`);
    }
    if (!existsSync(join(this.inputDir, rel))) return rel;
    if (statSync(join(this.inputDir, rel)).isDirectory()) throw new HttpError(400, `${what} '${rel}' refused: '${rel}' is a folder of the upload`);
    const base = posix.basename(rel);
    const dot = base.indexOf(".");
    const numbered = (n: number) => posix.join(posix.dirname(rel), dot > 0 ? `${base.slice(0, dot)}~${n}${base.slice(dot)}` : `${base}~${n}`);
    let n = 2;
    while (existsSync(join(this.inputDir, numbered(n)))) n++;
    const renamed = numbered(n);
    const hint = rel.includes("/") ? "" : " (files chosen one by one lose their folders: choose or drop the folder to keep them)";
    this.received.warnings.push(`two files named '${rel}' in the upload: the later one is kept as '${renamed}'${hint}`);
    return renamed;
  }
}

/** The folder an archive's entries go into: beside it, named after it. */
function besideAs(rel: string): string {
  return posix.join(posix.dirname(rel), archiveStem(posix.basename(rel)));
}
