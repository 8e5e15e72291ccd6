// Receiving an incident bundle: several files, or one .tar(.gz) archive,
// through multer into the incident's own folder. Every name (a form file name
// or an archive entry) must be a plain relative path: absolute paths, `..`
// segments, links and devices are refused before anything is written, and the
// caller removes the whole incident folder on any error.

import { createReadStream, existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { constants as zlibConstants, createGunzip, gunzipSync } from "node:zlib";
import type { Request, Response } from "express";
import multer from "multer";
import tar from "tar-stream";
import { HttpError, formatBytes } from "./errors.js";

export interface UploadLimits {
  /** Largest single uploaded file (an archive counts as one file). */
  maxFileBytes: number;
  /** Most files per upload, counting archive entries. */
  maxFiles: number;
  /** Largest request body. */
  maxUploadBytes: number;
  /** Most bytes unpacked from archives (guards against decompression bombs). */
  maxExtractedBytes: number;
}

export const DEFAULT_UPLOAD_LIMITS: UploadLimits = {
  maxFileBytes: 2 * 2 ** 30,
  maxFiles: 2000,
  maxUploadBytes: 4 * 2 ** 30,
  maxExtractedBytes: 16 * 2 ** 30,
};

export interface Received {
  files: number;
  bytes: number;
}

/** A name from the client, as a path that stays inside the folder it is written to. */
export function safeRelativePath(name: string, what: string): string {
  const refuse = (why: string) => new HttpError(400, `${what} '${name}' refused: ${why}`);
  if (name.length === 0 || name.length > 1024) throw refuse("empty or too long");
  if (name.includes("\0")) throw refuse("contains a NUL byte");
  const unified = name.replace(/\\/g, "/");
  if (unified.startsWith("/") || /^[a-zA-Z]:/.test(unified)) throw refuse("absolute path");
  const segments = unified.split("/").filter((s) => s !== "" && s !== ".");
  if (segments.includes("..")) throw refuse("'..' in the path");
  if (segments.length === 0) throw refuse("no file name");
  return segments.join("/");
}

export function checkContentLength(req: Request, limits: UploadLimits): void {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > limits.maxUploadBytes) {
    throw new HttpError(413, `upload of ${formatBytes(declared)} is over the limit of ${formatBytes(limits.maxUploadBytes)}`);
  }
}

/** Runs multer for one request, storing the parts as numbered files in stagingDir. */
export async function receiveFiles(req: Request, res: Response, stagingDir: string, limits: UploadLimits): Promise<Express.Multer.File[]> {
  mkdirSync(stagingDir, { recursive: true });
  let n = 0;
  const upload = multer({
    storage: multer.diskStorage({ destination: stagingDir, filename: (_req, _file, cb) => cb(null, String(n++)) }),
    limits: { fileSize: limits.maxFileBytes, files: limits.maxFiles, fields: 8, fieldSize: 4096, parts: limits.maxFiles + 8 },
    // Keep folder names (a folder upload sends "<host>/<role>-tp0.log"); safeRelativePath checks them.
    preservePath: true,
  }).array("files", limits.maxFiles);
  await new Promise<void>((resolve, reject) => upload(req, res, (err: unknown) => (err ? reject(err) : resolve())));
  return (req.files as Express.Multer.File[] | undefined) ?? [];
}

/** Moves the staged files to their names under inputDir, unpacking archives. */
export async function placeFiles(files: Express.Multer.File[], inputDir: string, limits: UploadLimits): Promise<Received> {
  if (files.length === 0) throw new HttpError(400, "the upload holds no files (form field 'files')");
  const received: Received = { files: 0, bytes: 0 };
  const names = files.map((f) => safeRelativePath(f.originalname, "file name"));
  for (const [i, file] of files.entries()) {
    const name = names[i]!;
    if (await isTarArchive(file.path)) {
      await extractTar(file.path, name, inputDir, limits, received);
      rmSync(file.path);
      continue;
    }
    const dest = join(inputDir, name);
    if (existsSync(dest)) throw new HttpError(400, `file name '${name}' appears twice in the upload`);
    mkdirSync(dirname(dest), { recursive: true });
    renameSync(file.path, dest);
    received.files++;
    received.bytes += file.size;
  }
  if (received.files === 0) throw new HttpError(400, "the upload holds no files (only empty archives)");
  return received;
}

const GZIP_MAGIC = [0x1f, 0x8b];

/** A tar archive, gzipped or not, recognised by its content ("ustar" at offset 257). */
async function isTarArchive(path: string): Promise<boolean> {
  const fh = await open(path, "r");
  try {
    const head = Buffer.alloc(64 * 1024);
    const { bytesRead } = await fh.read(head, 0, head.length, 0);
    let bytes = head.subarray(0, bytesRead);
    if (bytes[0] === GZIP_MAGIC[0] && bytes[1] === GZIP_MAGIC[1]) {
      try {
        bytes = gunzipSync(bytes, { finishFlush: zlibConstants.Z_SYNC_FLUSH } /* the head is a truncated stream */);
      } catch {
        return false;
      }
    }
    return bytes.length >= 262 && bytes.subarray(257, 262).toString("latin1") === "ustar";
  } finally {
    await fh.close();
  }
}

async function extractTar(archive: string, archiveName: string, inputDir: string, limits: UploadLimits, received: Received): Promise<void> {
  const fh = await open(archive, "r");
  const magic = Buffer.alloc(2);
  await fh.read(magic, 0, 2, 0);
  await fh.close();
  const gzipped = magic[0] === GZIP_MAGIC[0] && magic[1] === GZIP_MAGIC[1];

  const extract = tar.extract();
  const source = createReadStream(archive);
  const feeding = gzipped ? pipeline(source, createGunzip(), extract) : pipeline(source, extract);
  // Its failure surfaces through the entry loop (and the await below); mark it handled now.
  feeding.catch(() => undefined);
  try {
    for await (const entry of extract) await writeEntry(entry, archiveName, inputDir, limits, received);
    await feeding;
  } catch (err) {
    source.destroy();
    extract.destroy();
    if (err instanceof HttpError) throw err;
    throw new HttpError(400, `archive '${archiveName}' could not be read: ${(err as Error).message}`);
  }
}

/** One entry of an archive being read (tar-stream does not name the type). */
type TarEntry = tar.ExtractEvents["entry"][1];

async function writeEntry(entry: TarEntry, archiveName: string, inputDir: string, limits: UploadLimits, received: Received): Promise<void> {
  const { header } = entry;
  const what = `entry of '${archiveName}'`;
  if (header.type === "directory") {
    safeRelativePath(header.name, what);
    entry.resume();
    return;
  }
  if (header.type !== "file" && header.type !== "contiguous-file") {
    throw new HttpError(400, `${what} '${header.name}' refused: a ${header.type}, only regular files are accepted`);
  }
  const name = safeRelativePath(header.name, what);
  if (++received.files > limits.maxFiles) throw new HttpError(413, `too many files: at most ${limits.maxFiles} per upload`);
  const dest = join(inputDir, name);
  if (existsSync(dest)) throw new HttpError(400, `${what} '${name}' appears twice in the upload`);
  mkdirSync(dirname(dest), { recursive: true });
  const out = await open(dest, "wx");
  try {
    for await (const chunk of entry as AsyncIterable<Buffer>) {
      received.bytes += chunk.length;
      if (received.bytes > limits.maxExtractedBytes) {
        throw new HttpError(413, `archive '${archiveName}' unpacks to more than ${formatBytes(limits.maxExtractedBytes)}`);
      }
      await out.write(chunk);
    }
  } finally {
    await out.close();
  }
}
