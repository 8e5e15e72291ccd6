// journald's `journalctl -o short-iso` (and short-iso-precise) lines:
//   2026-06-11T14:03:07+0000 <host> <identifier>[<pid>]: <message>
// (`+00:00` since systemd 250), `-o short-full`'s
//   Thu 2026-06-11 14:03:07 UTC <host> <identifier>[<pid>]: <message>
// (format_timestamp: `%a %Y-%m-%d %H:%M:%S` and the zone's abbreviation,
// which dates the line where it is UTC, GMT or a numeric `+05`/`-0330`; a
// name such as CEST is no offset for sure, and the line is left undated),
// and its default, `short` (and short-precise), whose stamp is syslog's:
//   Jun 11 14:03:07[.554102] <host> <identifier>[<pid>]: <message>
// (systemd src/shared/logs-show.c output_timestamp_realtime, "%b %d %H:%M:%S"),
// written as rsyslog's traditional file format writes /var/log/syslog too,
// with the day space-padded. That stamp has no year and is in the local time
// of the machine journalctl ran on: like a glog stamp, it is read in the zone
// the ingest is given (--tz, UTC by default) and takes the year of the file's
// last dated record, else of its host's dated sources or its modification
// time (ingest/sources/timeHints.ts), which the source's time origin names.
// A line's own time (the SGLang prefix inside) comes first.
// The host it names stands in for a host the path does not give; a line of
// the identifier `kernel` (`journalctl -k`, /var/log/kern.log) is the
// kernel's log, read by the kernel's templates.
// journalctl also writes lines of its own, between `-- ` and ` --`: the
// journal's span (`-- Journal begins at …, ends at …. --`, before systemd 246
// `-- Logs begin at …, end at …. --`), `-- No entries --`, and the boot
// separators (`-- Boot <id> --`, `-- Reboot --`).

import { monthOfAbbreviation } from "../../../domain/timeFormat.js";
import { civilToUs, isValidCivil } from "../sglang/prefix.js";
import type { TorchStamp } from "../sglang/torchLines.js";
import { readRfc3339, type Instant } from "./rfc3339.js";
import type { Unwrapped } from "./index.js";
import { perLineWrapper } from "./perLine.js";

// The identifier is a program's name (`kernel`, `python3`, `(sd-pam)`): a word, never `#15` (a C++ backtrace's
// `<time> frame #15: …` under `kubectl logs --timestamps` is no journald line).
const REST = /^ (\S+) ([\w(][^\s:[]*)(?:\[\d+\])?: /;
// `%b` is the locale's abbreviated month: journalctl formats its stamp with strftime under the user's LC_TIME, so a
// Chinese locale prints the month as a number and 月, a Korean one as a number and 월, as pastes of journalctl show
// (`11月 15 14:15:47 host nv-fabricmanager[4177]: …`, `9月 05 09:24:07 host systemd[1]: …`, `5월 08 23:00:05 host
// systemd[1]: …`), and a Russian one as glibc's ru_RU `abmon`, three Cyrillic letters (`авг 18 14:14:59 host
// python3[28145]: …`; localedata/locales/ru_RU: `янв` … `мая` … `дек`, the genitive `мая` being `%b`'s, the
// nominative `май` only `%Ob`'s, which journalctl does not use). Those are read; the month words of other locales are not.
const RU_ABMON = ["янв", "фев", "мар", "апр", "мая", "июн", "июл", "авг", "сен", "окт", "ноя", "дек"];
export const SYSLOG_STAMP = new RegExp(String.raw`^(?:(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)|(?:1[0-2]|[1-9])[月월]|(?:${RU_ABMON.join("|")})) [ 0-3]\d \d\d:\d\d:\d\d(?:\.\d{1,6})?`);
const SHORT_FULL = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d) (UTC|GMT|[+-]\d\d(?:\d\d)?|[A-Z]{2,6})(?= )/;
const OWN_LINE = /^-- (?:Journal begins at .*|Logs begin at .*|No entries|Boot [0-9a-f]{32}|Reboot) --$/;

function unwrap(line: string): Unwrapped {
  if (OWN_LINE.test(line)) return { kind: "own" };
  const t = readRfc3339(line, 0) ?? readShortFull(line);
  const end = t?.end ?? SYSLOG_STAMP.exec(line)?.[0].length;
  const m = end === undefined ? null : REST.exec(line.substring(end, end + 256));
  if (end === undefined || m === null) return { kind: "foreign", why: "not a journald line (<time> <host> <unit>[<pid>]: <message>)" };
  const stamp = t === null ? syslogStamp(line) : undefined;
  return { kind: "line", inner: line.substring(end + m[0].length), tsUs: t?.us ?? -1, host: m[1], ...(m[2] === "kernel" && { kernel: true }), ...(stamp !== undefined && { stamp }) };
}


/** Syslog's `Jun 11 14:03:07[.554102]` (or `11月 15 14:15:47`, `авг 18 14:14:59`), read as a time of day without a year. */
export function syslogStamp(line: string): TorchStamp {
  // The month is three letters (Latin or Cyrillic), or one or two digits and a sign (月, 월); the rest sits at the same
  // places after it.
  const sign = line.indexOf(" ");
  const first = line.charCodeAt(0);
  const word = line.substring(0, 3);
  const month = first >= 48 && first <= 57 ? Number(line.substring(0, sign - 1)) : first > 0x7f ? RU_ABMON.indexOf(word) + 1 : monthOfAbbreviation(word);
  const o = sign - 3;
  const fraction = line.charCodeAt(15 + o) === 46 /* . */ ? line.substring(16 + o, 22 + o).replace(/\D.*$/, "") : "";
  return {
    month,
    day: Number(line.substring(4 + o, 6 + o).trim()),
    hour: Number(line.substring(7 + o, 9 + o)),
    minute: Number(line.substring(10 + o, 12 + o)),
    second: Number(line.substring(13 + o, 15 + o)),
    fractionUs: fraction === "" ? 0 : Number(fraction.padEnd(6, "0")),
  };
}

/** `-o short-full`'s stamp: its time in µs where its zone names an offset, else -1. */
function readShortFull(line: string): Instant | null {
  const m = SHORT_FULL.exec(line);
  if (m === null) return null;
  const civil = { year: +m[1]!, month: +m[2]!, day: +m[3]!, hour: +m[4]!, minute: +m[5]!, second: +m[6]! };
  if (!isValidCivil(civil)) return null;
  const zone = m[7]!;
  const offset = zone === "UTC" || zone === "GMT" ? 0 : /^[+-]/.test(zone) ? zoneOffsetMinutes(zone) : null;
  return { us: offset === null ? -1 : civilToUs(civil, 0, offset), end: m[0].length };
}

/** `+05`, `-0330`: minutes east of UTC. */
function zoneOffsetMinutes(zone: string): number {
  const sign = zone.charCodeAt(0) === 45 ? -1 : 1;
  return sign * (Number(zone.substring(1, 3)) * 60 + (zone.length > 3 ? Number(zone.substring(3, 5)) : 0));
}

export const journald = perLineWrapper("journald", unwrap, (line) => unwrap(line).kind !== "foreign");
