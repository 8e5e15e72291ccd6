// Which counter points the timeline holds: those of the tracks on open rows,
// for the visible span plus one span either side, at most two a pixel column
// (the server reduces them). Fetched again only when the view leaves that
// span, the zoom changes the pixel's width by more than twice, or the rows
// with tracks change. One request at a time, like WindowLoader.

import { api } from "./api.js";
import type { CountersAnswer } from "./types.js";
import { paddedRange, ViewLoader, type ViewSpan } from "./view-loader.js";

/** The server's most pixel columns a request (ui/server/params.ts CounterQuery). */
const MAX_PX = 8000;

export interface CounterWant extends ViewSpan {
  /** Lanes whose tracks are on a row. */
  lanes: number[];
}

export class CounterLoader extends ViewLoader<CounterWant, CountersAnswer> {
  private currentLanes = "";

  constructor(
    incident: string,
    private readonly onData: (data: CountersAnswer | null) => void,
    onError: (message: string) => void,
  ) {
    super(incident, onError);
  }

  get settled(): boolean {
    return !this.inFlight && (this.latest === null || this.satisfies(this.latest));
  }

  want(w: CounterWant): void {
    this.latest = w;
    if (w.lanes.length === 0) {
      if (this.current) {
        this.current = null;
        this.currentLanes = "";
        this.onData(null);
      }
      return;
    }
    if (!this.inFlight && !this.satisfies(w)) void this.fetch(w);
  }

  protected satisfies(w: CounterWant): boolean {
    if (w.lanes.length === 0) return this.current === null;
    const d = this.current;
    if (!d || this.currentLanes !== w.lanes.join(",")) return false;
    if (d.fromUs > Math.max(w.fromUs, w.minUs) || d.toUs < Math.min(w.toUs, w.maxUs + 1)) return false;
    const usPerPx = (d.toUs - d.fromUs) / d.px;
    // The finest a request can ask for: three spans across MAX_PX columns.
    const finest = Math.max(w.usPerPx, (3 * (w.toUs - w.fromUs)) / MAX_PX);
    return usPerPx >= w.usPerPx / 2 && usPerPx <= finest * 2;
  }

  protected request(w: CounterWant): Promise<CountersAnswer> {
    const { from, to } = paddedRange(w);
    const px = Math.max(1, Math.min(MAX_PX, Math.round((to - from) / w.usPerPx)));
    return api.counters(this.incident, { from, to, px, lanes: w.lanes });
  }

  protected accept(data: CountersAnswer, w: CounterWant): void {
    this.current = data;
    this.currentLanes = w.lanes.join(",");
    this.onData(data);
  }
}
