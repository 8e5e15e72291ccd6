// Reading the fields the model needs from a stored event: typed attribute
// getters and the pages an event names (DESIGN.md "Probe JSONL record":
// `pages` are half-open ranges; a store may give token `locs` instead).

import type { StoredEvent } from "../../ingest/store/queries.js";

/** An event that reads one attribute without building its whole `attrs` object (the replay's event cursor does). */
interface AttrLookup {
  attr(key: string): unknown;
}

/** `ev.attrs?.[key]`, through the event's own `attr` when it has one. */
function attrValue(ev: StoredEvent & Partial<AttrLookup>, key: string): unknown {
  return ev.attr !== undefined ? ev.attr(key) : ev.attrs?.[key];
}

export function attrNum(ev: StoredEvent, key: string): number | null {
  const v = attrValue(ev, key);
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "string" && /^-?\d+$/.test(v)) return Number(v);
  return null;
}

export function attrStr(ev: StoredEvent, key: string): string | null {
  const v = attrValue(ev, key);
  return typeof v === "string" ? v : typeof v === "number" ? String(v) : null;
}

export function attrBool(ev: StoredEvent, key: string): boolean | null {
  const v = attrValue(ev, key);
  if (typeof v === "boolean") return v;
  if (v === 0 || v === 1) return v === 1;
  if (v === "0" || v === "1") return v === "1";
  return null;
}

function isRange(r: unknown): r is [number, number] {
  return Array.isArray(r) && r.length === 2 && typeof r[0] === "number" && typeof r[1] === "number";
}

/**
 * Half-open page ranges [[lo, hi), ...]. Handlers walk them with index loops:
 * `for (const [lo, hi] of ranges)` allocated iterator results on every event.
 */
export type PageRanges = readonly (readonly [number, number])[];

const NO_RANGES: PageRanges = [];
Object.freeze(NO_RANGES);

/** The one array an event's [pageLo, pageHi) hull is returned in (most events name one range: no allocation per event). */
const HULL: [number, number] = [0, 0];
const HULL_RANGES: PageRanges = [HULL];

/**
 * The page ranges an event names: `attrs[key]` as [[lo, hi), ...], else the
 * row's pageLo/pageHi hull. Read the result before calling again (the hull is
 * reused), and never modify it.
 */
export function pageRanges(ev: StoredEvent, key = "pages"): PageRanges {
  const v = attrValue(ev, key);
  if (Array.isArray(v)) {
    if (isRange(v)) return [v];
    for (let i = 0; i < v.length; i++) if (!isRange(v[i])) return v.filter(isRange);
    return v as [number, number][];
  }
  if (ev.pageLo !== null && ev.pageHi !== null && key === "pages") {
    HULL[0] = ev.pageLo;
    HULL[1] = ev.pageHi;
    return HULL_RANGES;
  }
  return NO_RANGES;
}

export function countPages(ranges: PageRanges): number {
  let n = 0;
  for (let i = 0; i < ranges.length; i++) {
    const lo = ranges[i]![0];
    const hi = ranges[i]![1];
    n += hi > lo ? hi - lo : 0;
  }
  return n;
}

/** Every page of the ranges, in order. */
export function expandPages(ranges: PageRanges): number[] {
  const out: number[] = [];
  for (let i = 0; i < ranges.length; i++) for (let p = ranges[i]![0]; p < ranges[i]![1]; p++) out.push(p);
  return out;
}

/** Pages a store touches: its page ranges, or the pages of its token `locs` (page = loc // page size) in runs. */
export function storeRanges(ev: StoredEvent, pageTokens: number): PageRanges {
  const locs = ev.attrs?.locs;
  if (!Array.isArray(locs)) return pageRanges(ev);
  const pages: number[] = [];
  for (const l of locs) if (typeof l === "number" && Number.isFinite(l)) pages.push(Math.floor(l / pageTokens));
  pages.sort((a, b) => a - b);
  return toRanges(pages.filter((p, i) => i === 0 || p !== pages[i - 1]));
}

/** Compresses a page list back into half-open ranges (for views). */
export function toRanges(pages: readonly number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const p of pages) {
    const last = out[out.length - 1];
    if (last !== undefined && last[1] === p) last[1] = p + 1;
    else out.push([p, p + 1]);
  }
  return out;
}
