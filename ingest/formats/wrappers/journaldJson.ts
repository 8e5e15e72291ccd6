// journald's `journalctl -o json`: one JSON object per entry and line,
//   {"__CURSOR":"s=…","__REALTIME_TIMESTAMP":"1762897440123456","_HOSTNAME":"gpu-node-3","MESSAGE":"<line>",…}
// (systemd src/shared/logs-show.c output_json: the cursor and the two
// timestamps first, in microseconds as decimal strings, then the fields).
// MESSAGE is a string, an array of its bytes where it is not valid UTF-8, or
// null where it is longer than journalctl prints without --all. The host it
// names stands in for a host the path does not give, as journald's short-iso.
// A kernel entry's _SOURCE_MONOTONIC_TIMESTAMP is the kernel's own stamp of the
// line, the µs since boot plain `dmesg` prints (systemd src/journal/journald-kmsg.c
// dev_kmsg_record; systemd.journal-fields(7)); __MONOTONIC_TIMESTAMP is
// journald's CLOCK_MONOTONIC when it received the entry, another clock, not used.

import { isValidCivil } from "../sglang/prefix.js";
import type { Unwrapped } from "./index.js";
import { perLineWrapper } from "./perLine.js";
import { jsonObjectOf } from "./jsonLine.js";

/** journald's timestamps: microseconds as a decimal string. */
const MICROSECONDS = /^\d{1,17}$/;

/** A __REALTIME_TIMESTAMP in the years every other reader accepts, in µs; null otherwise. */
function realtimeUs(value: unknown): number | null {
  if (typeof value !== "string" || !MICROSECONDS.test(value)) return null;
  const d = new Date(Number(value) / 1000);
  const civil = { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: 0, minute: 0, second: 0 };
  return isValidCivil(civil) ? Number(value) : null;
}

interface JournalEntry {
  tsUs: number;
  /** Null where journalctl left it out. */
  message: string | null;
  host: string | null;
  /** journald's `_TRANSPORT` is `kernel`: the kernel's log. */
  kernel: boolean;
  /** A kernel entry's _SOURCE_MONOTONIC_TIMESTAMP (µs since boot); null when absent. */
  sinceBootUs: number | null;
}

function readEntry(line: string): JournalEntry | string {
  const value = jsonObjectOf(line, "journalctl -o json");
  return typeof value === "string" ? value : entryOf(value);
}

function entryOf(value: Record<string, unknown>): JournalEntry | string {
  const { __REALTIME_TIMESTAMP: realtime, MESSAGE: message, _HOSTNAME: host, _TRANSPORT: transport, _SOURCE_MONOTONIC_TIMESTAMP: sinceBoot } = value;
  const tsUs = realtimeUs(realtime);
  if (tsUs === null) return "a JSON object without a journald __REALTIME_TIMESTAMP";
  const kernel = transport === "kernel";
  return {
    tsUs,
    message: messageText(message),
    host: typeof host === "string" && host !== "" ? host : null,
    kernel,
    sinceBootUs: kernel && typeof sinceBoot === "string" && MICROSECONDS.test(sinceBoot) ? Number(sinceBoot) : null,
  };
}

function unwrap(line: string): Unwrapped {
  return unwrapEntry(readEntry(line));
}

/** The line a journal entry holds (an object `journalctl -o json` or `-o json-pretty` printed), or why it holds none. */
export function unwrapEntry(e: JournalEntry | string): Unwrapped {
  if (typeof e === "string") return { kind: "foreign", why: e };
  if (e.message === null) return { kind: "foreign", why: "a journald entry whose MESSAGE journalctl left out (longer than it prints without --all)" };
  return {
    kind: "line",
    inner: e.message,
    tsUs: e.tsUs,
    ...(e.host !== null && { host: e.host }),
    ...(e.kernel && { kernel: true }),
    ...(e.sinceBootUs !== null && { kernelSinceBootUs: e.sinceBootUs }),
  };
}

/** The entry `journalctl -o json-pretty` printed over several lines, joined back. */
export function readPrettyEntry(text: string): Unwrapped {
  const value = jsonObjectOf(text, "journalctl -o json-pretty");
  return unwrapEntry(typeof value === "string" ? value : entryOf(value));
}

function messageText(message: unknown): string | null {
  if (typeof message === "string") return message;
  if (Array.isArray(message) && message.every((b) => Number.isInteger(b) && b >= 0 && b < 256)) return Buffer.from(message as number[]).toString("utf8");
  return null;
}

export const journaldJson = perLineWrapper("journald-json", unwrap, (line) => line.includes('"__REALTIME_TIMESTAMP"') && typeof readEntry(line) !== "string");
