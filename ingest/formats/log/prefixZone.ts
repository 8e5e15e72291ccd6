// A wrapped file whose own prefix times stand a whole number of quarter hours from the container runtime's UTC
// stamps was logged in another zone than it was read in: unless the user named the zone (--tz), the stamps decide
// it, once, on the file's first line that has both (DESIGN.md "Inputs": times). A part of a file cut for parallel
// parsing starts with the fix its part above decided (ParseContext.zoneFixMinutes).

const US_PER_SECOND = 1_000_000;
const US_PER_MINUTE = 60 * US_PER_SECOND;
const QUARTER_HOUR_MIN = 15;

export class PrefixZone {
  private fixUs: number | null = null;
  private noteText: string | null = null;

  constructor(
    private readonly tzOffsetMinutes: number,
    private readonly tzGiven: boolean,
    decidedMinutes: number | undefined,
  ) {
    if (decidedMinutes !== undefined) this.settle(decidedMinutes);
  }

  /** The minutes added to prefix times once a line decided them, else null. */
  get settledMinutes(): number | null {
    return this.fixUs === null ? null : this.fixUs / US_PER_MINUTE;
  }

  /** What the fix means, for the file's time origin; null when none was needed. */
  get note(): string | null {
    return this.noteText;
  }

  /**
   * A prefix time in the read zone. A prefix of whole seconds (SGLang's default) takes the wrapper's microseconds
   * when the wrapper's stamp falls inside that second: the runtime stamped the line as the process wrote it, so lines
   * of one second keep their order against other files' lines.
   */
  timeOf(prefixUs: number, wholeSecond: boolean, wrapperUs: number): number {
    const us = prefixUs + this.fixFor(prefixUs, wrapperUs);
    return wholeSecond && wrapperUs >= us && wrapperUs < us + US_PER_SECOND ? wrapperUs : us;
  }

  /** Microseconds to add to a prefix time, deciding them on the first line with a wrapper's time (`wrapperUs` ≥ 0). */
  private fixFor(prefixUs: number, wrapperUs: number): number {
    if (this.fixUs !== null) return this.fixUs;
    if (wrapperUs < 0) return 0;
    const diffMin = (prefixUs - wrapperUs) / US_PER_MINUTE;
    const quarters = Math.round(diffMin / QUARTER_HOUR_MIN);
    const whole = quarters !== 0 && Math.abs(diffMin - quarters * QUARTER_HOUR_MIN) < 2;
    this.settle(!this.tzGiven && whole ? -quarters * QUARTER_HOUR_MIN : 0);
    return this.fixUs!;
  }

  private settle(fixMinutes: number): void {
    this.fixUs = fixMinutes * US_PER_MINUTE;
    if (fixMinutes !== 0) {
      const east = this.tzOffsetMinutes - fixMinutes;
      this.noteText = `log prefix times read at UTC${east >= 0 ? "+" : "-"}${hhmm(Math.abs(east))}, as the container runtime's UTC stamps show`;
    }
  }
}

function hhmm(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
}
