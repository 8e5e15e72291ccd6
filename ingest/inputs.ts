// From the paths a user names to plain files the scan and load can read:
// directories are walked recursively (in name order), and gzip and tar
// content — told by its magic bytes, not its name — is unpacked into a
// private temporary directory (so that every source can later be read in step
// with the others, which a tar stream does not allow).

import { closeSync, createReadStream, createWriteStream, existsSync, openSync, readdirSync, readSync, rmSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import * as tar from "tar-stream";
import { InputError } from "./identity.js";

export interface InputFile {
  /** As shown and stored in sources.path: the path given, a file under a directory, or `archive:entry`. */
  displayPath: string;
  /** A plain file with the content (the original, or an unpacked copy). */
  plainPath: string;
  /** The path host and role are read from: the display path, or an archive entry's own name. */
  identityPath: string;
  /** Named by the user (not found in a directory or an archive). */
  named: boolean;
}

export interface RejectedInput {
  displayPath: string;
  reason: string;
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

type Container = "gzip" | "tar" | "plain";

function sniff(path: string): Container {
  const fd = openSync(path, "r");
  try {
    const head = Buffer.alloc(512);
    const n = readSync(fd, head, 0, 512, 0);
    if (n >= 2 && head[0] === 0x1f && head[1] === 0x8b) return "gzip";
    if (n >= 262 && head.toString("latin1", 257, 262) === "ustar") return "tar";
    return "plain";
  } finally {
    closeSync(fd);
  }
}

export class InputExpander {
  private counter = 0;
  readonly files: InputFile[] = [];
  readonly rejected: RejectedInput[] = [];

  constructor(private readonly tempDir: string) {}

  async add(path: string, named = true): Promise<void> {
    const st = statSync(path);
    if (st.isDirectory()) {
      for (const name of readdirSync(path).sort()) await this.add(join(path, name), false);
    } else if (st.isFile()) {
      await this.addFile(path, path, path, named);
    } else {
      this.rejected.push({ displayPath: path, reason: "not a regular file or directory" });
    }
  }

  private tempPath(name: string): string {
    return join(this.tempDir, `${++this.counter}-${basename(name).replace(/[^\w.-]/g, "_").slice(-80)}`);
  }

  private async addFile(file: string, displayPath: string, identityPath: string, named: boolean): Promise<void> {
    const kind = sniff(file);
    if (kind === "plain") this.files.push({ displayPath, plainPath: file, identityPath, named });
    else if (kind === "tar") await this.addTar(file, displayPath);
    else await this.addGzip(file, displayPath, identityPath, named);
  }

  private async addGzip(file: string, displayPath: string, identityPath: string, named: boolean): Promise<void> {
    const out = this.tempPath(displayPath.replace(/\.t?gz$/i, ""));
    let error: Error | undefined;
    try {
      await pipeline(createReadStream(file), createGunzip(), createWriteStream(out));
    } catch (e) {
      error = e as Error;
    }
    const unpackedName = identityPath.replace(/\.gz$/i, "");
    if (!error) return this.addFile(out, displayPath, unpackedName, named);
    if (sniff(out) === "tar") {
      // Entries that were complete before the cut are still good.
      this.rejected.push({ displayPath, reason: `truncated or corrupt gzip (${error.message}); its complete tar entries were read` });
      return this.addTar(out, displayPath);
    }
    rmSync(out, { force: true });
    this.rejected.push({ displayPath, reason: `truncated or corrupt gzip (${error.message}); not ingested` });
  }

  private async addTar(file: string, archivePath: string): Promise<void> {
    const extract = tar.extract();
    createReadStream(file)
      .on("error", (e) => extract.destroy(e))
      .pipe(extract);
    const unpacked: { out: string; name: string }[] = [];
    let current: string | undefined;
    try {
      for await (const entry of extract) {
        const name = entry.header.name;
        if (entry.header.type !== "file" && entry.header.type !== "contiguous-file") {
          entry.resume();
          continue;
        }
        const out = this.tempPath(name);
        current = name;
        await pipeline(entry, createWriteStream(out));
        current = undefined;
        unpacked.push({ out, name });
      }
    } catch (e) {
      const where = current !== undefined ? `its entry ${current} was cut and is not ingested` : "the entries before the damage were read";
      this.rejected.push({ displayPath: archivePath, reason: `truncated or corrupt tar (${(e as Error).message}); ${where}` });
    }
    for (const { out, name } of unpacked) await this.addFile(out, `${archivePath}:${name}`, name, false);
  }
}

export async function expandInputs(paths: readonly string[], tempDir: string): Promise<ExpandedInputs> {
  assertPathsExist(paths);
  const expander = new InputExpander(tempDir);
  for (const p of paths) await expander.add(p);
  return { files: expander.files, rejected: expander.rejected };
}
