// Docker's json-file log driver: one JSON object per line,
//   {"log":"<text>\n","stream":"stderr","time":"2026-06-11T14:03:07.554102345Z"}
// A `log` without its final newline is a partial line (Docker splits lines at
// 16 KiB): it is joined with the entries that follow. A line that is not such
// an object stays a line of its own, kept as text.

import { readRfc3339 } from "./rfc3339.js";
import type { LineUnwrapper, SingleWrapper, Unwrapped } from "./index.js";
import { PartialLines } from "./partialLines.js";
import { jsonObjectOf } from "./jsonLine.js";

interface DockerEntry {
  log: string;
  tsUs: number;
}

function readEntry(line: string): DockerEntry | string {
  const value = jsonObjectOf(line, "docker json-file");
  if (typeof value === "string") return value;
  const { log, time } = value;
  if (typeof log !== "string" || typeof time !== "string") return "a JSON object without docker's log and time fields";
  const t = readRfc3339(time, 0);
  if (t === null) return `docker json-file entry with an unreadable time ${JSON.stringify(time)}`;
  return { log, tsUs: t.us };
}

class DockerUnwrapper implements LineUnwrapper {
  private readonly parts = new PartialLines();

  unwrap(line: string): Unwrapped {
    const e = readEntry(line);
    if (typeof e === "string") return { kind: "foreign", why: e };
    const full = e.log.endsWith("\n");
    return this.parts.add(full ? e.log.slice(0, e.log.endsWith("\r\n") ? -2 : -1) : e.log, e.tsUs, full);
  }

  end(): Unwrapped | null {
    return this.parts.end();
  }
}

export const dockerJson: SingleWrapper = {
  name: "docker-json",
  matches: (line) => line.startsWith('{"log":') && typeof readEntry(line) !== "string",
  create: () => new DockerUnwrapper(),
};
