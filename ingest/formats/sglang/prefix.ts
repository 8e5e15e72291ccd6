// The SGLang log line prefix (docs/protocol.md §1):
//   ^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(?:\.(\d{3}))?((?: [A-Z_]+\d+)*)\] (.*)$
// and the older one whose time has no date, `[23:17:01 TP7] …` (`datefmt="%H:%M:%S"`).
// Tags appear in any order and subset (the order changed four times upstream),
// so they are read order-independently. The prefix is scanned by hand rather
// than by that regex: it is the one step every line pays for.

/** What reading the start of a line found. */
export const PrefixResult = {
  /** The line does not start with a log prefix (a continuation or foreign line). */
  none: 0,
  /** A prefix was read; its fields are on the reader. */
  ok: 1,
  /** The shape of a prefix with an impossible date or time in it. */
  badTime: 2,
  /**
   * Rank tags without a time, `[ TP3] message` (a format whose asctime is empty), or with a time of day but no date
   * (`[23:17:01 TP7] message`): the line has no time of its own.
   */
  tagsOnly: 3,
} as const;
export type PrefixResult = (typeof PrefixResult)[keyof typeof PrefixResult];

const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const SPACE = 32;
const DOT = 46;
const ELLIPSIS = 0x2026;
const DIGIT_0 = 48;
const UPPER_A = 65;
const UPPER_Z = 90;
const UNDERSCORE = 95;
const OPEN_PAREN = 40;

const MS_PER_MINUTE = 60_000;

/** The civil date and time a log line was written at, read from its digits. */
export interface CivilTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** Microseconds since the epoch (UTC) of a civil time written in a zone `tzOffsetMinutes` east of UTC. */
export function civilToUs(t: CivilTime, fractionUs: number, tzOffsetMinutes: number): number {
  const ms = Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second) - tzOffsetMinutes * MS_PER_MINUTE;
  return ms * 1000 + fractionUs;
}

// Microseconds since the epoch stay exact (below 2^53) until 2255; a log from
// outside these years is a mangled line, not a real time.
const MIN_YEAR = 1970;
const MAX_YEAR = 2199;

/** True when the fields name a real calendar date (in a plausible year) and a time of day. */
export function isValidCivil(t: CivilTime): boolean {
  if (t.year < MIN_YEAR || t.year > MAX_YEAR) return false;
  if (t.month < 1 || t.month > 12 || t.day < 1 || t.hour > 23 || t.minute > 59 || t.second > 60) return false;
  const daysInMonth = new Date(Date.UTC(t.year, t.month, 0)).getUTCDate();
  return t.day <= daysInMonth;
}

function digitAt(s: string, i: number): number {
  const d = s.charCodeAt(i) - DIGIT_0;
  return d >= 0 && d <= 9 ? d : -1;
}

/** The number written by `n` digits at `i`, or -1 when any of them is not a digit. */
function digitsAt(s: string, i: number, n: number): number {
  let v = 0;
  for (let k = 0; k < n; k++) {
    const d = digitAt(s, i + k);
    if (d < 0) return -1;
    v = v * 10 + d;
  }
  return v;
}

/**
 * Reads the prefix of one line at a time into its own fields (no allocation
 * per line except the object for uncommon tags). Reuse one reader per file.
 */
export class PrefixReader {
  tsUs = 0;
  /** The time states whole seconds only (SGLang's `datefmt` without `SGLANG_LOG_MS`: docs/protocol.md §1). */
  wholeSecond = true;
  /** Index in the line where the message starts. */
  msgStart = 0;
  /** -1 when the tag is absent. */
  dp = -1;
  pp = -1;
  tp = -1;
  /** ATTN_CP, MOE_DP, EP and any unknown tag, keyed by lower-case tag name; null when none. */
  tagAttrs: Record<string, number> | null = null;
  /** The year of the last prefix read (for stamps that carry none), 0 before the first. */
  lastYear = 0;
  lastMonth = 0;

  private minuteKey = "";
  private minuteBaseUs = 0;
  private readonly civil: CivilTime = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };

  constructor(private readonly tzOffsetMinutes: number) {}

  read(line: string): PrefixResult {
    let p = 0;
    if (line.charCodeAt(0) === OPEN_PAREN) {
      // A Ray actor prefix `(Name pid=N, ip=...) ` before the log prefix (§1).
      const close = line.indexOf(") [", 1);
      const pid = line.indexOf(" pid=", 1);
      if (close < 0 || pid < 0 || pid > close) return PrefixResult.none;
      p = close + 2;
    }
    if (line.charCodeAt(p) !== OPEN_BRACKET) return PrefixResult.none;
    if (line.charCodeAt(p + 1) === SPACE) return this.readTagsOnly(line, p + 1);
    // Consecutive lines share their minute: its text matched, only the seconds need reading.
    const sameMinute = this.minuteKey.length > 0 && line.startsWith(this.minuteKey, p + 1) && line.charCodeAt(p + 17) === 58;
    if (!sameMinute && !this.hasDateShape(line, p + 1)) {
      return isTimeOfDay(line, p + 1) ? this.readTimeOfDay(line, p + 1) : this.readPlaceholder(line, p + 1);
    }
    const timeOk = sameMinute || this.readMinute(line, p + 1);
    const second = digitsAt(line, p + 18, 2);
    if (second < 0) return PrefixResult.none;
    let i = p + 20;
    let fractionUs = 0;
    if (line.charCodeAt(i) === DOT) {
      const ms = digitsAt(line, i + 1, 3);
      if (ms < 0) return PrefixResult.none;
      fractionUs = ms * 1000;
      i += 4;
    }
    i = this.readTags(line, i);
    if (i < 0) return PrefixResult.none;
    if (!timeOk || second > 60) return PrefixResult.badTime;
    this.tsUs = this.minuteBaseUs + second * 1_000_000 + fractionUs;
    this.wholeSecond = line.charCodeAt(p + 20) !== DOT;
    this.msgStart = i;
    return PrefixResult.ok;
  }

  /**
   * A prefix whose time a user replaced by a word when pasting (`[timestamp
   * DP3 TP3]`, `[... TP0]`): its rank tags are read, its time is unknown.
   * Only letters or dots stand in for the time, so a mangled date is still
   * no prefix.
   */
  private readPlaceholder(line: string, at: number): PrefixResult {
    let i = at;
    for (let c = line.charCodeAt(i); isLetter(c) || c === DOT || c === ELLIPSIS; c = line.charCodeAt(++i));
    return i > at && line.charCodeAt(i) === SPACE ? this.readTagsOnly(line, i) : PrefixResult.none;
  }

  /**
   * SGLang's prefix before its date was added: `configure_logger` passed `datefmt="%H:%M:%S"` (docs/protocol.md §1), so
   * a line reads `[23:17:01 TP7] Load weight end. …`, or `[23:17:08] …` from a process without tags. Its tags are
   * read; a time of day without its date places the line at no instant, so it has no time of its own.
   */
  private readTimeOfDay(line: string, at: number): PrefixResult {
    const i = this.readTags(line, at + TIME_OF_DAY_CHARS);
    if (i < 0) return PrefixResult.none;
    this.msgStart = i;
    return PrefixResult.tagsOnly;
  }

  private readTagsOnly(line: string, at: number): PrefixResult {
    const i = this.readTags(line, at);
    if (i < 0 || (this.dp < 0 && this.pp < 0 && this.tp < 0 && this.tagAttrs === null)) return PrefixResult.none;
    this.msgStart = i;
    return PrefixResult.tagsOnly;
  }

  /** `YYYY-MM-DD HH:MM:SS` at `i`: digits and separators in place (values unchecked). */
  private hasDateShape(s: string, i: number): boolean {
    return (
      s.charCodeAt(i + 4) === 45 &&
      s.charCodeAt(i + 7) === 45 &&
      s.charCodeAt(i + 10) === SPACE &&
      s.charCodeAt(i + 13) === 58 &&
      s.charCodeAt(i + 16) === 58 &&
      digitsAt(s, i, 4) >= 0 &&
      digitsAt(s, i + 5, 2) >= 0 &&
      digitsAt(s, i + 8, 2) >= 0 &&
      digitsAt(s, i + 11, 2) >= 0 &&
      digitsAt(s, i + 14, 2) >= 0 &&
      digitsAt(s, i + 17, 2) >= 0
    );
  }

  /** Sets the base of the line's minute (cached: consecutive lines share it). False when the date is impossible. */
  private readMinute(s: string, i: number): boolean {
    const c = this.civil;
    c.year = digitsAt(s, i, 4);
    c.month = digitsAt(s, i + 5, 2);
    c.day = digitsAt(s, i + 8, 2);
    c.hour = digitsAt(s, i + 11, 2);
    c.minute = digitsAt(s, i + 14, 2);
    c.second = 0;
    if (!isValidCivil(c)) return false;
    this.minuteKey = s.substring(i, i + 16);
    this.minuteBaseUs = civilToUs(c, 0, this.tzOffsetMinutes);
    this.lastYear = c.year;
    this.lastMonth = c.month;
    return true;
  }

  /** Reads ` TAG<n>` groups up to `] `; returns the message start, or -1 when the shape is wrong. */
  private readTags(s: string, i: number): number {
    this.dp = -1;
    this.pp = -1;
    this.tp = -1;
    this.tagAttrs = null;
    while (s.charCodeAt(i) === SPACE) {
      const nameStart = i + 1;
      let j = nameStart;
      for (let c = s.charCodeAt(j); (c >= UPPER_A && c <= UPPER_Z) || c === UNDERSCORE; c = s.charCodeAt(++j));
      if (j === nameStart) return -1;
      const numStart = j;
      let value = 0;
      for (let d = digitAt(s, j); d >= 0; d = digitAt(s, ++j)) value = value * 10 + d;
      if (j === numStart) return -1;
      this.setTag(s, nameStart, numStart - nameStart, value);
      i = j;
    }
    if (s.charCodeAt(i) !== CLOSE_BRACKET) return -1;
    if (i + 1 === s.length) return i + 1;
    return s.charCodeAt(i + 1) === SPACE ? i + 2 : -1;
  }

  private setTag(s: string, at: number, len: number, value: number): void {
    if (len === 2 && s.charCodeAt(at + 1) === 80 /* P */) {
      const c = s.charCodeAt(at);
      if (c === 68 /* D */) return void (this.dp = value);
      if (c === 80 /* P */) return void (this.pp = value);
      if (c === 84 /* T */) return void (this.tp = value);
      if (c === 69 /* E */) return this.setAttr("ep", value);
    }
    if (len === 7 && s.startsWith("ATTN_CP", at)) return this.setAttr("attn_cp", value);
    if (len === 6 && s.startsWith("MOE_DP", at)) return this.setAttr("moe_dp", value);
    this.setAttr(s.substring(at, at + len).toLowerCase(), value);
  }

  private setAttr(name: string, value: number): void {
    if (this.tagAttrs === null) this.tagAttrs = {};
    this.tagAttrs[name] = value;
  }
}

const TIME_OF_DAY_CHARS = 8;

/** `HH:MM:SS` at `i`, a real time of day. */
function isTimeOfDay(s: string, i: number): boolean {
  if (s.charCodeAt(i + 2) !== 58 || s.charCodeAt(i + 5) !== 58) return false;
  const hour = digitsAt(s, i, 2);
  const minute = digitsAt(s, i + 3, 2);
  const second = digitsAt(s, i + 6, 2);
  return hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59 && second >= 0 && second <= 60;
}

function isLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}
