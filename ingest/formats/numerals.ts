// Exact handling of the numbers in probe records, checksum dumps and Flight
// Recorder dumps. Rooms are 63-bit integers and nanosecond stamps have 19
// digits: neither survives a trip through a float, so both are read from
// their decimal text (DESIGN.md "Identifiers").

/**
 * Where a number token may not survive a float: an integer of 16+ digits
 * (2^53 has 16), or a decimal of 17+ significant digits (a double holds
 * about 16; seconds with six decimals, 16 digits, come back exactly).
 */
const LOSSY_CANDIDATE = /[\d.]{16}/;
/**
 * A number token stands where a JSON value starts: at the text's start or
 * after `:`, `[` or `,` (and blanks). A digit run anywhere else is inside a
 * string (OTLP's nanosecond times, hex ids), so a text whose only long runs
 * are there needs no scan.
 */
const LOSSY_TOKEN = /(?:^|[:[,])\s*-?[\d.eE+-]{16}/;
const LOSSY_CANDIDATES = /[\d.]{16,}/g;

/**
 * JSON.parse for one line or document, except that number tokens that a
 * float would round come back as their exact decimal strings. Throws
 * SyntaxError like JSON.parse.
 */
export function parseJsonExact(text: string): unknown {
  return JSON.parse(LOSSY_CANDIDATE.test(text) && LOSSY_TOKEN.test(text) ? quoteLossyNumbers(text) : text);
}

function isNumberChar(c: number): boolean {
  return (c >= 48 && c <= 57) || c === 46 || c === 45 || c === 43 || c === 101 || c === 69;
}

/** True when the quote at `q` is escaped (preceded by an odd run of backslashes). */
function escapedQuote(text: string, q: number): boolean {
  let n = 0;
  for (let i = q - 1; i >= 0 && text.charCodeAt(i) === 92; i--) n++;
  return n % 2 === 1;
}

/** Wraps the lossy number tokens that stand outside strings in quotes. */
function quoteLossyNumbers(text: string): string {
  const re = LOSSY_CANDIDATES;
  re.lastIndex = 0;
  let out = "";
  let copied = 0;
  let scanned = 0;
  let inString = false;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    for (let q = text.indexOf('"', scanned); q >= 0 && q < m.index; q = text.indexOf('"', q + 1)) {
      if (!inString || !escapedQuote(text, q)) inString = !inString;
      scanned = q + 1;
    }
    if (inString) continue;
    let start = m.index;
    while (start > 0 && isNumberChar(text.charCodeAt(start - 1))) start--;
    let end = m.index + m[0].length;
    while (end < text.length && isNumberChar(text.charCodeAt(end))) end++;
    const token = text.slice(start, end);
    const digits = token.replace(/[^0-9]/g, "").length;
    const integer = !/[.eE]/.test(token);
    if (digits >= 17 || (integer && digits >= 16)) {
      out += text.slice(copied, start) + '"' + token + '"';
      copied = end;
    }
    re.lastIndex = end;
    scanned = Math.max(scanned, end);
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** A decimal numeral split into its digits and a power of ten: value = sign * digits * 10^exp. */
interface Decimal {
  negative: boolean;
  digits: string;
  exp: number;
}

const NUMERAL = /^\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/;

function splitNumeral(text: string): Decimal | undefined {
  const m = NUMERAL.exec(text);
  if (!m) return undefined;
  const intPart = m[2] ?? "";
  const fracPart = m[3] ?? "";
  if (intPart === "" && fracPart === "") return undefined;
  const digits = (intPart + fracPart).replace(/^0+(?=\d)/, "");
  return { negative: m[1] === "-", digits, exp: Number(m[4] ?? 0) - fracPart.length };
}

/** The integer part of value * 10^shift (truncated toward zero), if it is a safe integer. */
function scaledInteger(d: Decimal, shift: number): number | undefined {
  const e = d.exp + shift;
  // Past 16 integer digits nothing is a safe integer (and a huge exponent must not build a huge string).
  if (d.digits.length + e > 16) return undefined;
  const intDigits = e >= 0 ? d.digits + "0".repeat(e) : d.digits.slice(0, Math.max(0, d.digits.length + e));
  const n = intDigits === "" ? 0 : Number(intDigits);
  if (!Number.isSafeInteger(n)) return undefined;
  return d.negative && n !== 0 ? -n : n;
}

/**
 * Epoch microseconds from a timestamp numeral. DESIGN.md gives seconds (a
 * float such as 1764421512.123456) or integer nanoseconds; the unit is read
 * from the magnitude (digits before the point: up to 11 seconds, 14
 * milliseconds, 17 microseconds, more nanoseconds) so that an integer-seconds
 * stamp is not read as a date in 1970. Sub-microsecond digits are truncated.
 */
export function epochUsFromNumeral(text: string): number | undefined {
  const d = splitNumeral(text);
  if (!d) return undefined;
  const intDigits = d.digits.length + d.exp;
  if (intDigits <= 11) return scaledInteger(d, 6);
  if (intDigits <= 14) return scaledInteger(d, 3);
  if (intDigits <= 17) return scaledInteger(d, 0);
  return scaledInteger(d, -3);
}

/** Epoch microseconds from a JSON value (number or numeric string). */
export function epochUsFromValue(v: unknown): number | undefined {
  // Seconds as a number have at most 16 significant digits (longer numerals stay
  // text, parseJsonExact), so at most six decimals here: the product rounds exactly.
  if (typeof v === "number" && v >= 1e9 && v < 9e9) return Math.round(v * 1e6);
  if (typeof v === "number") return Number.isFinite(v) ? epochUsFromNumeral(String(v)) : undefined;
  if (typeof v === "string") return epochUsFromNumeral(v);
  return undefined;
}

/** Microseconds from an integer nanosecond count given as number or exact string. */
export function usFromNs(v: unknown): number | undefined {
  const text = typeof v === "number" && Number.isInteger(v) ? String(v) : typeof v === "string" ? v : undefined;
  if (text === undefined || !/^-?\d+$/.test(text.trim())) return undefined;
  const d = splitNumeral(text);
  return d && scaledInteger(d, -3);
}

/** A room (bootstrap_room) as its exact decimal string. */
export function roomFromValue(v: unknown): string | undefined {
  if (typeof v === "string") return v.length > 0 ? v : undefined;
  if (typeof v === "number" && Number.isSafeInteger(v)) return String(v);
  return undefined;
}

/** A small integer field (rank, chunk, layer, page), from a number or a numeric string. */
export function intFromValue(v: unknown): number | undefined {
  if (typeof v === "number") return Number.isSafeInteger(v) ? v : undefined;
  if (typeof v === "string" && /^-?\d+$/.test(v)) {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : undefined;
  }
  return undefined;
}

/** The end of the run of decimal digits in `s` at `i` (`i` itself when there is none). */
export function digitsEnd(s: string, i: number): number {
  let c = s.charCodeAt(i);
  while (c >= 48 && c <= 57) c = s.charCodeAt(++i);
  return i;
}
