// Which window of events the timeline holds. It fetches the visible time span
// plus one span either side, at about one bucket per two pixels, and fetches
// again only when the view leaves that span, the zoom makes the buckets too
// coarse or too fine, or the kind filter changes. One request at a time: when
// it returns, the view is checked again, so a long zoom gesture still
// converges on fresh data.

import { api } from "./api.js";
import type { WindowColumns } from "./types.js";
import { paddedRange, ViewLoader, type ViewSpan } from "./view-loader.js";

/** Most single events drawn before the server aggregates a window into buckets. */
export const MAX_EVENTS = 15_000;
const PX_PER_BUCKET = 2;

export type Want = ViewSpan;

export interface WindowFilter {
  hide: number[];
  hideSpans: number[];
}

export class WindowLoader extends ViewLoader<Want, WindowColumns> {
  private filter: WindowFilter = { hide: [], hideSpans: [] };
  /** Bumped by each filter change: an answer to an older filter is dropped. */
  private generation = 0;

  constructor(
    incident: string,
    private readonly onData: (data: WindowColumns) => void,
    onError: (message: string) => void,
  ) {
    super(incident, onError);
  }

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

  protected satisfies(w: Want): boolean {
    const d = this.current;
    if (!d) return false;
    const covers = d.fromUs <= Math.max(w.fromUs, w.minUs) && d.toUs >= Math.min(w.toUs, w.maxUs + 1);
    if (!covers) return false;
    if (d.mode === "events") return true;
    const pxPerBucket = d.bucketUs / w.usPerPx;
    return pxPerBucket >= PX_PER_BUCKET / 2 && pxPerBucket <= PX_PER_BUCKET * 2;
  }

  protected async request(w: Want): Promise<WindowColumns | undefined> {
    const generation = this.generation;
    const { from, to } = paddedRange(w);
    const buckets = Math.max(1, Math.min(8000, Math.round((to - from) / (w.usPerPx * PX_PER_BUCKET))));
    const data = await api.window(this.incident, { from, to, buckets, max: MAX_EVENTS, ...this.filter });
    return generation === this.generation ? data : undefined;
  }

  protected accept(data: WindowColumns): void {
    this.current = data;
    this.onData(data);
  }
}
