// How times are written in summaries and messages: ISO 8601 UTC with microseconds.

/** "2026-08-20T10:15:32.123456Z" from epoch microseconds. */
export function isoFromUs(us: number): string {
  const ms = Math.floor(us / 1000);
  const micros = String(((us % 1_000_000) + 1_000_000) % 1_000_000).padStart(6, "0");
  return `${new Date(ms).toISOString().slice(0, 19)}.${micros}Z`;
}

const MONTH_ABBREVIATIONS = "JanFebMarAprMayJunJulAugSepOctNovDec";

/** The month (1–12) of its English abbreviation as C's `%b` and Go's `Jan` print it; 0 for any other text. */
export function monthOfAbbreviation(name: string): number {
  const at = name.length === 3 ? MONTH_ABBREVIATIONS.indexOf(name) : -1;
  return at < 0 || at % 3 !== 0 ? 0 : at / 3 + 1;
}

