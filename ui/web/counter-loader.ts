// Which counter points the timeline holds: those of the tracks on open rows,
// for the visible span plus one span either side, at most two a pixel column
// (the server reduces them). Fetched again only when the view leaves that
// span, the zoom changes the pixel's width by more than twice, or the rows
// with tracks change. One request at a time, like WindowLoader.

import { api } from "./api.js";
import type { CountersAnswer } from "./types.js";

/** The server's most pixel columns a request (ui/server/params.ts CounterQuery). */
const MAX_PX = 8000;

export interface CounterWant {
  fromUs: number;
  toUs: number;
  usPerPx: number;
  minUs: number;
  maxUs: number;
  /** Lanes whose tracks are on a row. */
  lanes: number[];
}

export class CounterLoader {
  current: CountersAnswer | null = null;
  private currentLanes = "";
  private inFlight = false;
  private latest: CounterWant | null = null;
  private errorShown = false;

  constructor(
    private readonly incident: string,
    private readonly onData: (data: CountersAnswer | null) => void,
    private readonly onError: (message: string) => void,
  ) {}

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

  private satisfies(w: CounterWant): boolean {
    if (w.lanes.length === 0) return this.current === null;
    const d = this.current;
    if (!d || this.currentLanes !== w.lanes.join(",")) return false;
    if (d.fromUs > Math.max(w.fromUs, w.minUs) || d.toUs < Math.min(w.toUs, w.maxUs + 1)) return false;
    const usPerPx = (d.toUs - d.fromUs) / d.px;
    // The finest a request can ask for: three spans across MAX_PX columns.
    const finest = Math.max(w.usPerPx, (3 * (w.toUs - w.fromUs)) / MAX_PX);
    return usPerPx >= w.usPerPx / 2 && usPerPx <= finest * 2;
  }

  private async fetch(w: CounterWant): Promise<void> {
    this.inFlight = true;
    const span = w.toUs - w.fromUs;
    const from = Math.max(w.minUs, w.fromUs - span);
    const to = Math.max(from + 1, Math.min(w.maxUs + 1, w.toUs + span));
    const px = Math.max(1, Math.min(MAX_PX, Math.round((to - from) / w.usPerPx)));
    const lanes = w.lanes.join(",");
    try {
      const data = await api.counters(this.incident, { from, to, px, lanes: w.lanes });
      this.current = data;
      this.currentLanes = lanes;
      this.errorShown = false;
      this.onData(data);
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
