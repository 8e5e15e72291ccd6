// Errors that reach the client: a status and a message written for a person.
// Anything else becomes a 500 with a generic message (the detail goes to the
// server's stderr, never to the response).

import { formatBytes } from "../../domain/byteSize.js";
import type { NextFunction, Request, Response } from "express";
import multer from "multer";
import { z } from "zod";

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function parseOr400<T extends z.ZodType>(schema: T, value: unknown, what: string): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.length ? `'${i.path.join(".")}'` : "value"}: ${i.message}`);
    throw new HttpError(400, `invalid ${what}: ${issues.join("; ")}`);
  }
  return parsed.data;
}

const MULTER_MESSAGES: Partial<Record<string, (limit: UploadLimitsView) => [number, string]>> = {
  LIMIT_FILE_SIZE: (l) => [413, `a file is larger than the upload limit of ${formatBytes(l.maxFileBytes)}`],
  LIMIT_FILE_COUNT: (l) => [413, `too many files: at most ${l.maxFiles} per upload`],
  LIMIT_UNEXPECTED_FILE: () => [400, "files must be sent in the form field 'files'"],
  LIMIT_PART_COUNT: () => [400, "too many form parts"],
  LIMIT_FIELD_COUNT: () => [400, "too many form fields"],
  LIMIT_FIELD_VALUE: () => [400, "a form field is too long"],
};

export interface UploadLimitsView {
  maxFileBytes: number;
  maxFiles: number;
}

/**
 * A message with the server's own paths taken out: a path inside an upload's
 * staging folder or an incident's input folder becomes the path inside the
 * upload, and any other path under the data directory loses that prefix.
 */
export function withoutServerPaths(message: string, dataDir: string): string {
  const root = dataDir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return message
    .replace(new RegExp(`${root}/(?:staging/[^/\\s'"]+/(?:input|parts)|incidents/[^/\\s'"]+/input)/?`, "g"), "")
    .replace(new RegExp(`${root}/?`, "g"), "");
}

export function errorHandler(limits: UploadLimitsView, log: (line: string) => void, dataDir: string) {
  return (err: unknown, _req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) return next(err);
    if (err instanceof HttpError) {
      res.status(err.status).json({ error: withoutServerPaths(err.message, dataDir) });
      return;
    }
    if (err instanceof multer.MulterError) {
      const [status, message] = MULTER_MESSAGES[err.code]?.(limits) ?? [400, `upload refused: ${err.code}`];
      res.status(status).json({ error: message });
      return;
    }
    // express.json and friends mark client errors with a status.
    const status = (err as { status?: unknown }).status;
    if (typeof status === "number" && status >= 400 && status < 500) {
      res.status(status).json({ error: withoutServerPaths((err as Error).message, dataDir) });
      return;
    }
    log(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    res.status(500).json({ error: "internal error (see the server log)" });
  };
}

