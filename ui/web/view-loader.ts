// What the timeline's loaders share: they hold the data of the visible span
// plus one span either side, fetch one request at a time, and when a request
// returns check the latest view again, so a long zoom gesture still converges
// on fresh data. An error is shown once until a request succeeds again.

/** The visible span, the scale it is drawn at, and the incident's whole span (requests are clipped to it). */
export interface ViewSpan {
  fromUs: number;
  toUs: number;
  /** Real microseconds per pixel where time is not folded. */
  usPerPx: number;
  minUs: number;
  maxUs: number;
}

/** The span a request asks for: the visible one and one span either side, within the incident. */
export function paddedRange(w: ViewSpan): { from: number; to: number } {
  const span = w.toUs - w.fromUs;
  const from = Math.max(w.minUs, w.fromUs - span);
  return { from, to: Math.max(from + 1, Math.min(w.maxUs + 1, w.toUs + span)) };
}

export abstract class ViewLoader<W extends ViewSpan, D> {
  current: D | null = null;
  protected inFlight = false;
  protected latest: W | null = null;
  private errorShown = false;

  constructor(
    protected readonly incident: string,
    private readonly onError: (message: string) => void,
  ) {}

  /** Whether the data held answers the view `w`. */
  protected abstract satisfies(w: W): boolean;

  /** The data for `w`; undefined when the answer came too late to be used (the view's terms changed meanwhile). */
  protected abstract request(w: W): Promise<D | undefined>;

  /** Takes an answer as the data held. */
  protected abstract accept(data: D, w: W): void;

  protected async fetch(w: W): Promise<void> {
    this.inFlight = true;
    try {
      const data = await this.request(w);
      if (data !== undefined) {
        this.errorShown = false;
        this.accept(data, w);
      }
    } catch (err) {
      if (!this.errorShown) this.onError((err as Error).message);
      this.errorShown = true;
      this.latest = null;
    } finally {
      this.inFlight = false;
    }
    if (this.latest && !this.satisfies(this.latest)) void this.fetch(this.latest);
  }
}
