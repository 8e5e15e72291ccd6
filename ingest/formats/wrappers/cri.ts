// The Kubernetes CRI log format (kubelet's /var/log/pods/... files):
//   <RFC3339Nano> <stdout|stderr> <F|P> <line>
// `P` marks a partial line: the runtime split a long line, and the parts
// that follow (up to an `F`) are joined back into one.

import { readRfc3339 } from "./rfc3339.js";
import type { LineUnwrapper, SingleWrapper, Unwrapped } from "./index.js";
import { PartialLines } from "./partialLines.js";

export interface CriLine {
  tsUs: number;
  full: boolean;
  text: string;
}

/** A CRI line's parts, or null when `line` is not one (a shipper may hold one whole in its record: ./shipperJson.ts). */
export function readCri(line: string): CriLine | null {
  const t = readRfc3339(line, 0);
  if (t === null || line.charCodeAt(t.end) !== 32) return null;
  let i = t.end + 1;
  if (line.startsWith("stdout ", i)) i += 7;
  else if (line.startsWith("stderr ", i)) i += 7;
  else return null;
  const tag = line.charCodeAt(i);
  if ((tag !== 70 /* F */ && tag !== 80) /* P */ || (line.length > i + 1 && line.charCodeAt(i + 1) !== 32)) return null;
  return { tsUs: t.us, full: tag === 70, text: line.substring(Math.min(line.length, i + 2)) };
}

class CriUnwrapper implements LineUnwrapper {
  private readonly parts = new PartialLines();

  unwrap(line: string): Unwrapped {
    const c = readCri(line);
    if (c === null) return { kind: "foreign", why: "not a CRI log line (<time> <stream> <F|P> <line>)" };
    return this.parts.add(c.text, c.tsUs, c.full);
  }

  end(): Unwrapped | null {
    return this.parts.end();
  }
}

export const cri: SingleWrapper = {
  name: "cri",
  matches: (line) => readCri(line) !== null,
  create: () => new CriUnwrapper(),
};
