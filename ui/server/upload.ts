// Receiving an incident bundle through multer into a staging folder: the
// parts of a multipart form, each a file (or an archive, see bundle.ts), its
// name a plain relative path. A form the parser cannot read is the client's
// error (400), never the server's.

import { mkdirSync } from "node:fs";
import type { Request, Response } from "express";
import multer from "multer";
import { entryPath, unsafeEntryName } from "../../ingest/inputs/archive.js";
import { formatBytes } from "../../domain/byteSize.js";
import { HttpError } from "./errors.js";

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

/** A name from the client, as a path that stays inside the folder it is written to. */
export function safeRelativePath(name: string, what: string): string {
  const refuse = (why: string) => new HttpError(400, `${what} '${name}' refused: ${why}`);
  if (name.length === 0 || name.length > 1024) throw refuse("empty or too long");
  const unsafe = unsafeEntryName(name);
  if (unsafe !== undefined) throw refuse(unsafe);
  const path = entryPath(name);
  if (path === "") throw refuse("no file name");
  return path;
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
  await new Promise<void>((resolve, reject) => upload(req, res, (err: unknown) => (err ? reject(asClientError(err)) : resolve())));
  return (req.files as Express.Multer.File[] | undefined) ?? [];
}

/**
 * Multer's own refusals (limits, field names) keep their codes; anything else
 * the form parser throws (no boundary, a form cut short, a malformed part
 * header) is a malformed request.
 */
function asClientError(err: unknown): unknown {
  if (err instanceof multer.MulterError || err instanceof HttpError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new HttpError(400, `the upload is not a well-formed multipart form: ${message.replace(/^Multipart: /, "")}`);
}
