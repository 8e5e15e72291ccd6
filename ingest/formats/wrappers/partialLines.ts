// Runtimes split long lines: CRI marks the parts `P` up to a final `F`,
// Docker's json-file leaves the final newline off the parts. Both are joined
// back into the one line the process wrote, timed by its first part.

import type { Unwrapped } from "./index.js";

export class PartialLines {
  private parts: string[] = [];
  private firstTsUs = 0;

  /** Adds a part; the whole line once `full` says it ended, else "partial". */
  add(text: string, tsUs: number, full: boolean): Unwrapped {
    if (this.parts.length === 0) this.firstTsUs = tsUs;
    this.parts.push(text);
    return full ? this.joined() : { kind: "partial" };
  }

  /** The parts so far as a line (the file ended, or a foreign line cut them off); null when none. */
  end(): Unwrapped | null {
    return this.parts.length > 0 ? this.joined() : null;
  }

  private joined(): Unwrapped {
    const inner = this.parts.length === 1 ? this.parts[0]! : this.parts.join("");
    this.parts = [];
    return { kind: "line", inner, tsUs: this.firstTsUs };
  }
}
