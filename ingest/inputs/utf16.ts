// Logs saved as UTF-16: Windows PowerShell 5's `>` and `Out-File` write
// UTF-16LE with a byte order mark (`kubectl logs pod > decode.log` run
// there), and some editors save UTF-16 on request. Such a file is transcoded
// to UTF-8 before it is read, as a compressed one is unpacked
// (ingest/inputs/inputs.ts), so the reader sees the text it holds.

import { closeSync, openSync, readSync, writeSync } from "node:fs";

export type Utf16 = "utf-16le" | "utf-16be";

/**
 * UTF-16 by its byte order mark (FF FE little-endian, FE FF big-endian)
 * followed by text; null for anything else. Without a mark nothing is
 * guessed, and the text check keeps bytes that merely start with one (a page
 * dump's) from being taken for text.
 */
export function utf16Of(head: Buffer): Utf16 | null {
  const encoding = head[0] === 0xff && head[1] === 0xfe ? "utf-16le" : head[0] === 0xfe && head[1] === 0xff ? "utf-16be" : null;
  if (encoding === null) return null;
  const body = head.subarray(2, head.length - (head.length % 2));
  return looksLikeText(new TextDecoder(encoding).decode(body, { stream: true })) ? encoding : null;
}

/** No replacement character and no control character but tab, line ends and escape. */
function looksLikeText(text: string): boolean {
  return !/[\u0000-\u0008\u000e-\u001a\u001c-\u001f\ufffd]/.test(text);
}

const READ_BYTES = 1 << 20;

/** Writes the file's text as UTF-8 (its byte order mark dropped) to `out`. */
export function transcodeUtf16(path: string, encoding: Utf16, out: string): void {
  const decoder = new TextDecoder(encoding);
  const input = openSync(path, "r");
  const output = openSync(out, "w");
  try {
    const buf = Buffer.allocUnsafe(READ_BYTES);
    for (let n; (n = readSync(input, buf, 0, READ_BYTES, null)) > 0; ) {
      writeSync(output, decoder.decode(buf.subarray(0, n), { stream: true }));
    }
    writeSync(output, decoder.decode());
  } finally {
    closeSync(input);
    closeSync(output);
  }
}
