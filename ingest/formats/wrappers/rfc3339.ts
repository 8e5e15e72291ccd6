// RFC 3339 instants as container runtimes and journald print them
// (`2026-06-11T14:03:07.554102345Z`, `2026-06-11T14:03:07+0000`), read by hand
// into integer microseconds since the epoch: they start every wrapped line.

import { isValidCivil } from "../sglang/prefix.js";

const MS_PER_MINUTE = 60_000;

function digits(s: string, at: number, n: number): number {
  let v = 0;
  for (let i = 0; i < n; i++) {
    const d = s.charCodeAt(at + i) - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

/** Where an instant read by `readRfc3339` ended, and its value. */
export interface Instant {
  us: number;
  end: number;
}

/**
 * Reads `YYYY-MM-DDTHH:MM:SS(.frac)?(Z|±HH(:)?MM)` at `at`; a zone is required
 * (a wrapper's time is never local). Null when the text is not one.
 */
export function readRfc3339(s: string, at: number): Instant | null {
  if (s.charCodeAt(at + 4) !== 45 || s.charCodeAt(at + 7) !== 45 || s.charCodeAt(at + 10) !== 84 /* T */) return null;
  if (s.charCodeAt(at + 13) !== 58 || s.charCodeAt(at + 16) !== 58) return null;
  const minuteMs = minuteStartMs(s, at);
  const second = digits(s, at + 17, 2);
  if (minuteMs === null || second > 60) return null;
  let i = at + 19;
  let fractionUs = 0;
  if (s.charCodeAt(i) === 46 /* . */ || s.charCodeAt(i) === 44 /* , */) {
    let scale = 100_000;
    i++;
    const start = i;
    for (let d = s.charCodeAt(i) - 48; d >= 0 && d <= 9; d = s.charCodeAt(++i) - 48) {
      fractionUs += d * scale;
      scale = Math.floor(scale / 10);
    }
    if (i === start) return null;
  }
  let offsetMinutes = 0;
  const z = s.charCodeAt(i);
  if (z === 90 /* Z */ || z === 122 /* z */) i++;
  else if (z === 43 /* + */ || z === 45 /* - */) {
    const hh = digits(s, i + 1, 2);
    const colon = s.charCodeAt(i + 3) === 58 ? 1 : 0;
    const mm = digits(s, i + 3 + colon, 2);
    if (hh < 0 || mm < 0) return null;
    offsetMinutes = (z === 45 ? -1 : 1) * (hh * 60 + mm);
    i += 5 + colon;
  } else return null;
  const ms = minuteMs + second * 1000 - offsetMinutes * MS_PER_MINUTE;
  return { us: ms * 1000 + fractionUs, end: i };
}

/** The last minute read (`YYYY-MM-DDTHH:MM`) and its start: consecutive wrapped lines share their minute. */
const lastMinute = { text: "", ms: 0 };

/** The UTC start in ms of the minute written at `at` (its seconds read apart), or null when it is not a real one. */
function minuteStartMs(s: string, at: number): number | null {
  if (lastMinute.text.length > 0 && s.startsWith(lastMinute.text, at)) return lastMinute.ms;
  const year = digits(s, at, 4);
  const month = digits(s, at + 5, 2);
  const day = digits(s, at + 8, 2);
  const hour = digits(s, at + 11, 2);
  const minute = digits(s, at + 14, 2);
  if (!isValidCivil({ year, month, day, hour, minute, second: 0 })) return null;
  lastMinute.text = s.substring(at, at + 16);
  lastMinute.ms = Date.UTC(year, month - 1, day, hour, minute);
  return lastMinute.ms;
}

/**
 * The line after a wrapper's own prefix (a compose service's bar, kubectl's
 * `[pod/…/…]`): with `--timestamps` the runtime's time and a space come
 * first, read as the line's time; without, the line has none of the wrapper's.
 */
export function lineAfterTime(rest: string, host: string): { kind: "line"; inner: string; tsUs: number; host: string } {
  const t = readRfc3339(rest, 0);
  if (t !== null && rest.charCodeAt(t.end) === 32) return { kind: "line", inner: rest.substring(t.end + 1), tsUs: t.us, host };
  return { kind: "line", inner: rest, tsUs: -1, host };
}
