// journald's `journalctl -o short-iso` (and short-iso-precise) lines:
//   2026-06-11T14:03:07+0000 <host> <identifier>[<pid>]: <message>
// The host it names stands in for a host the path does not give.
// journalctl also writes lines of its own, between `-- ` and ` --`: the
// journal's span (`-- Journal begins at …, ends at …. --`, before systemd 246
// `-- Logs begin at …, end at …. --`), `-- No entries --`, and the boot
// separators (`-- Boot <id> --`, `-- Reboot --`).

import { readRfc3339 } from "./rfc3339.js";
import type { Unwrapped, Wrapper } from "./index.js";

// The identifier is a program's name (`kernel`, `python3`, `(sd-pam)`): a word, never `#15` (a C++ backtrace's
// `<time> frame #15: …` under `kubectl logs --timestamps` is no journald line).
const REST = /^ (\S+) ([\w(][^\s:[]*)(?:\[\d+\])?: /;
const OWN_LINE = /^-- (?:Journal begins at .*|Logs begin at .*|No entries|Boot [0-9a-f]{32}|Reboot) --$/;

function unwrap(line: string): Unwrapped {
  if (OWN_LINE.test(line)) return { kind: "own" };
  const t = readRfc3339(line, 0);
  const m = t === null ? null : REST.exec(line.substring(t.end, t.end + 256));
  if (t === null || m === null) return { kind: "foreign", why: "not a journald short-iso line (<time> <host> <unit>[<pid>]: <message>)" };
  return { kind: "line", inner: line.substring(t.end + m[0].length), tsUs: t.us, host: m[1] };
}

export const journald: Wrapper = {
  name: "journald",
  matches: (line) => unwrap(line).kind !== "foreign",
  create: () => ({ unwrap, end: () => null }),
};
