// The sha256 of a file's bytes, read apart from any parse: a file cut into
// parts is hashed while the workers parse them (ingest/load/workers.ts), and a
// file the incident may hold already is hashed instead of parsed
// (ingest/sources/knownAgain.ts).

import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { READ_BYTES } from "./lines.js";

/** The sha256 (hex) of the file's first `bytes` bytes: the bytes it had when the ingest began, a log still being written has grown since. */
export function fileSha256(path: string, bytes: number): Promise<string> {
  const hash = createHash("sha256");
  if (bytes === 0) return Promise.resolve(hash.digest("hex"));
  return new Promise((resolve, reject) => {
    createReadStream(path, { start: 0, end: bytes - 1, highWaterMark: READ_BYTES })
      .on("data", (chunk) => hash.update(chunk))
      .on("end", () => resolve(hash.digest("hex")))
      .on("error", reject);
  });
}
