// journald's `journalctl -o json-pretty`: each entry the object `-o json`
// prints on one line (./journaldJson.ts), spread over several, one field a
// line indented by a tab, the key and value apart by ` : `:
//   {
//   	"__CURSOR" : "s=…",
//   	"__REALTIME_TIMESTAMP" : "1762897440123456",
//   	"_HOSTNAME" : "gpu-node-3",
//   	"MESSAGE" : "<line>"
//   }
// (systemd src/shared/logs-show.c output_json, its JSON dumped with
// JSON_FORMAT_PRETTY; a MESSAGE that is not UTF-8 is an array of its bytes,
// one a line at a deeper indentation). An entry's lines are the parts of one
// line, joined when its `}` closes it.

import type { LineUnwrapper, SingleWrapper, Unwrapped } from "./index.js";
import { readPrettyEntry } from "./journaldJson.js";

/** A field line (`\t"MESSAGE" : "…",`), or a line inside an array value (deeper, or its closing bracket). */
const FIELD = /^\t(?:"[A-Za-z_][A-Za-z0-9_]*" : |\t|\]|\[)/;

class PrettyUnwrapper implements LineUnwrapper {
  /** The open entry's lines, from its `{`. */
  private lines: string[] = [];
  /** An entry a new `{` cut off, handed back by end() as the line it makes. */
  private cut: string[] | null = null;

  unwrap(line: string): Unwrapped {
    if (line === "{") {
      const open = this.lines.length > 0;
      if (open) this.cut = this.lines;
      this.lines = [line];
      return open ? { kind: "partial", cuts: "a journalctl -o json-pretty entry that a new one cut off" } : { kind: "partial" };
    }
    if (this.lines.length === 0) return { kind: "foreign", why: "not inside a journalctl -o json-pretty entry ({ … })" };
    if (line === "}") {
      const entry = readPrettyEntry(`${this.lines.join("\n")}\n}`);
      if (entry.kind === "line") this.lines = [];
      return entry;
    }
    if (!FIELD.test(line)) return { kind: "foreign", why: "a line that is no field of a journalctl -o json-pretty entry" };
    this.lines.push(line);
    return { kind: "partial" };
  }

  /**
   * The lines of an entry that did not close into a line (cut off by a new
   * entry, a foreign line or the file's end): the entry closed where it
   * stopped when that names its line, else its lines as they stand.
   */
  end(): Unwrapped | null {
    const lines = this.cut ?? this.lines;
    if (this.cut !== null) this.cut = null;
    else this.lines = [];
    if (lines.length === 0) return null;
    const closed = readPrettyEntry(`${lines.join("\n").replace(/,\s*$/, "")}\n}`);
    return closed.kind === "line" ? closed : { kind: "line", inner: lines.join("\n"), tsUs: -1 };
  }
}

export const journaldJsonPretty: SingleWrapper = {
  name: "journald-json-pretty",
  matches: (line) => line === "{" || line === "}" || FIELD.test(line),
  create: () => new PrettyUnwrapper(),
};
