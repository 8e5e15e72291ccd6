// Which window of events the timeline holds. It fetches the visible time span
// plus one span either side, at about one bucket per two pixels, and fetches
// again only when the view leaves that span, the zoom makes the buckets too
// coarse or too fine, or the kind filter changes. One request at a time: when
// it returns, the view is checked again, so a long zoom gesture still
// converges on fresh data.

import { api } from "./api.js";
import type { WindowColumns } from "./types.js";

/** Most single events drawn before the server aggregates a window into buckets. */
export const MAX_EVENTS = 15_000;
const PX_PER_BUCKET = 2;

export interface Want {
  /** The visible real time span. */
  fromUs: number;
  toUs: number;
  /** Real microseconds per pixel where time is not folded. */
  usPerPx: number;
  /** The incident's whole span: windows are clipped to it. */
  minUs: number;
  maxUs: number;
}

export interface WindowFilter {
  hide: number[];
  hideSpans: number[];
}

export class WindowLoader {
  current: WindowColumns | null = null;
  private inFlight = false;
  private latest: Want | null = null;
  private errorShown = false;
  private filter: WindowFilter = { hide: [], hideSpans: [] };
  /** Bumped by each filter change: an answer to an older filter is dropped. */
  private generation = 0;

  constructor(
    private readonly incident: string,
    private readonly onData: (data: WindowColumns) => void,
    private readonly onError: (message: string) => void,
  ) {}

  /** True when the data held answers the latest view and nothing is being fetched. */
  get settled(): boolean {
    return !this.inFlight && this.latest !== null && this.satisfies(this.latest);
  }

  setFilter(filter: WindowFilter): void {
    this.filter = filter;
    this.generation++;
    this.current = null;
    if (this.latest && !this.inFlight) void this.fetch(this.latest);
  }

  want(w: Want): void {
    this.latest = w;
    if (!this.inFlight && !this.satisfies(w)) void this.fetch(w);
  }

  private satisfies(w: Want): boolean {
    const d = this.current;
    if (!d) return false;
    const covers = d.fromUs <= Math.max(w.fromUs, w.minUs) && d.toUs >= Math.min(w.toUs, w.maxUs + 1);
    if (!covers) return false;
    if (d.mode === "events") return true;
    const pxPerBucket = d.bucketUs / w.usPerPx;
    return pxPerBucket >= PX_PER_BUCKET / 2 && pxPerBucket <= PX_PER_BUCKET * 2;
  }

  private async fetch(w: Want): Promise<void> {
    this.inFlight = true;
    const generation = this.generation;
    const span = w.toUs - w.fromUs;
    const from = Math.max(w.minUs, w.fromUs - span);
    const to = Math.max(from + 1, Math.min(w.maxUs + 1, w.toUs + span));
    const buckets = Math.max(1, Math.min(8000, Math.round((to - from) / (w.usPerPx * PX_PER_BUCKET))));
    try {
      const data = await api.window(this.incident, { from, to, buckets, max: MAX_EVENTS, ...this.filter });
      if (generation === this.generation) {
        this.current = data;
        this.errorShown = false;
        this.onData(data);
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
