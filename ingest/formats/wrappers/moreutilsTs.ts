// moreutils' `ts`, which operators pipe a server's output through to stamp each
// line (`python -m sglang.launch_server … 2>&1 | ts | tee server.log`): every
// line after its default stamp and a space, `Dec 07 16:10:11 <line>`
// (moreutils ts: `$format="%b %d %H:%M:%S"`, strftime of localtime; `%.S`
// adds microseconds). The stamp is syslog's, read as journald's short form
// reads it (./journald.ts): no year, the local time of the machine, in the
// zone the ingest is given. A line's own time comes first. The stamp names no
// host; journald's lines, which name one after the stamp, are journald's.

import { SYSLOG_STAMP, syslogStamp } from "./journald.js";
import type { Unwrapped } from "./index.js";
import { perLineWrapper } from "./perLine.js";

function unwrap(line: string): Unwrapped {
  const end = SYSLOG_STAMP.exec(line)?.[0].length;
  if (end === undefined || (line.length > end && line.charCodeAt(end) !== 32)) return { kind: "foreign", why: "no `ts` stamp at the start" };
  return { kind: "line", inner: line.substring(end + 1), tsUs: -1, stamp: syslogStamp(line) };
}

export const moreutilsTs = perLineWrapper("moreutils-ts", unwrap);
