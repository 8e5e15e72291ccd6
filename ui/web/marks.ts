// Turning a window answer into draw lists: one list per fill style, so a
// frame sets each colour once and then draws plain rectangles; the names
// each row can show, in time order; and the spans, placed on rows. A row
// with counter tracks draws them instead of marks. Built when
// data arrives, rows open or close, or the time layout changes — never per
// frame. Times are display times (ui/view/timemap.ts).

import { COMPONENT_COLORS, ERROR_COLOR, kindColor, shortKind, WARN_COLOR } from "../view/kindColors.js";
import { TimeQuality } from "../../domain/event.js";
import type { TimeMap } from "../view/timemap.js";
import type { RowIndex, Row } from "./rows.js";
import type { Component, LanesAnswer, WindowColumns } from "./types.js";

const HEADER_COLOR = "#8793b5";
const LEVELS = [0.3, 0.5, 0.75, 1];
const COMPONENTS = Object.keys(COMPONENT_COLORS) as Component[];

/** Fill styles of one incident: component colours, header, warning, error, then one per kind; each at LEVELS alphas. */
export class Palette {
  readonly styles: string[];
  readonly kindColors: string[];
  private readonly kindBase: number;

  constructor(readonly lanes: LanesAnswer) {
    this.kindColors = lanes.kinds.map((k, i) => kindColor(k, lanes.kindComponents[i] ?? "logs", lanes.kindTones[i] ?? 0));
    const colors = [...COMPONENTS.map((c) => COMPONENT_COLORS[c]), HEADER_COLOR, WARN_COLOR, ERROR_COLOR, ...this.kindColors];
    this.kindBase = COMPONENTS.length + 3;
    this.styles = colors.flatMap((hex) => LEVELS.map((a) => withAlpha(hex, a)));
  }

  /** A bucket's colour: its loudest tone, else its lane's component (or the header colour on a summary row). */
  bucketColor(row: Row, component: Component, tone: number): number {
    if (tone === 2) return COMPONENTS.length + 2;
    if (tone === 1) return COMPONENTS.length + 1;
    return row.depth === 2 ? COMPONENTS.indexOf(component) : COMPONENTS.length;
  }

  /** A single event's colour: its tone when loud (a Failed poll is red), else its kind's. */
  eventColor(kind: number, tone: number): number {
    if (tone === 2) return COMPONENTS.length + 2;
    if (tone === 1) return COMPONENTS.length + 1;
    return this.kindBase + kind;
  }

  style(color: number, level = LEVELS.length - 1): number {
    return color * LEVELS.length + level;
  }

  /** The name drawn beside a mark: the event's own, else its kind's short name. */
  labelText(label: number, kind: number): string {
    return label > 0 ? (this.lanes.labels[label] ?? "") : shortKind(this.lanes.kinds[kind] ?? "");
  }
}

function withAlpha(hex: string, alpha: number): string {
  const n = parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255},${(n >> 8) & 255},${n & 255},${alpha})`;
}

export interface StyleList {
  n: number;
  t0: Float64Array;
  t1: Float64Array;
  row: Uint32Array;
  /** 1 where the event's time is inferred or unknown: drawn as an outline, not a bar. */
  hollow: Uint8Array;
}

/** The events a row shows one by one, in time order, with what to call them. */
export interface RowLabels {
  t: Float64Array;
  text: string[];
}

/** Spans placed on the deepest row that shows their lane. */
export interface PlacedSpans {
  n: number;
  d0: Float64Array;
  d1: Float64Array;
  row: Int32Array;
  type: Uint8Array;
  open: Uint8Array;
  seq: Uint32Array;
  text: string[];
}

export interface Marks {
  data: WindowColumns;
  /** Display time of each event of an events answer (empty for buckets). */
  dts: Float64Array;
  lists: StyleList[];
  /** Per row, in events mode; empty lists otherwise. */
  labels: RowLabels[];
  spans: PlacedSpans;
}

export interface MarkLayout {
  palette: Palette;
  rows: Row[];
  index: RowIndex;
  map: TimeMap;
}

/** Every mark as it is built, before the marks are split by style. */
interface MarkColumns {
  row: number[];
  t0: number[];
  t1: number[];
  style: number[];
  hollow: number[];
}

export function buildMarks(data: WindowColumns, l: MarkLayout): Marks {
  const out: MarkColumns = { row: [], t0: [], t1: [], style: [], hollow: [] };
  const perRow: { t: number[]; text: string[] }[] = l.rows.map(() => ({ t: [], text: [] }));
  const dts = new Float64Array(data.mode === "events" ? data.seq.length : 0);
  if (data.mode === "events") {
    for (let i = 0; i < data.seq.length; i++) {
      const t = l.map.toD(data.ts[i]!);
      dts[i] = t;
      const style = l.palette.style(l.palette.eventColor(data.kind[i]!, data.tone[i]!));
      const text = l.palette.labelText(data.label[i]!, data.kind[i]!);
      for (const r of l.index.rowsOfLane[data.lane[i]!] ?? []) {
        if (l.rows[r]!.tracks.length) continue;
        out.row.push(r);
        out.t0.push(t);
        out.t1.push(t);
        out.style.push(style);
        out.hollow.push(data.time[i] === TimeQuality.known ? 0 : 1);
        perRow[r]!.t.push(t);
        perRow[r]!.text.push(text);
      }
    }
  } else bucketMarks(data, l, out);
  return {
    data,
    dts,
    lists: splitByStyle(out, l.palette.styles.length),
    labels: perRow.map((p) => ({ t: Float64Array.from(p.t), text: p.text })),
    spans: placeSpans(data, l),
  };
}

function bucketMarks(data: Extract<WindowColumns, { mode: "buckets" }>, l: MarkLayout, out: MarkColumns): void {
  const B = data.buckets;
  const counts = new Uint32Array(l.rows.length * B);
  const tones = new Uint8Array(l.rows.length * B);
  for (let i = 0; i < data.lane.length; i++) {
    for (const r of l.index.rowsOfLane[data.lane[i]!] ?? []) {
      const cell = r * B + data.bucket[i]!;
      counts[cell]! += data.count[i]!;
      if (data.tone[i]! > tones[cell]!) tones[cell] = data.tone[i]!;
    }
  }
  const maxByDepth = [1, 1, 1];
  l.rows.forEach((row, r) => {
    for (let b = 0; b < B; b++) maxByDepth[row.depth] = Math.max(maxByDepth[row.depth]!, counts[r * B + b]!);
  });
  l.rows.forEach((row, r) => {
    if (row.tracks.length) return;
    const logMax = Math.log1p(maxByDepth[row.depth]!);
    // Neighbouring buckets of one style are one rectangle.
    let open = -1;
    for (let b = 0; b < B; b++) {
      const c = counts[r * B + b]!;
      if (c === 0) {
        open = -1;
        continue;
      }
      const level = Math.min(LEVELS.length - 1, Math.floor((Math.log1p(c) / logMax) * LEVELS.length));
      const style = l.palette.style(l.palette.bucketColor(row, row.component ?? "logs", tones[r * B + b]!), level);
      const t1 = l.map.toD(data.fromUs + (b + 1) * data.bucketUs);
      if (open >= 0 && out.style[open] === style) {
        out.t1[open] = t1;
        continue;
      }
      open = out.row.length;
      out.row.push(r);
      out.t0.push(l.map.toD(data.fromUs + b * data.bucketUs));
      out.t1.push(t1);
      out.style.push(style);
      out.hollow.push(0);
    }
  });
}

function splitByStyle(out: MarkColumns, styles: number): StyleList[] {
  const sizes = new Uint32Array(styles);
  for (const s of out.style) sizes[s]!++;
  const lists: StyleList[] = Array.from(sizes, (size) => ({ n: 0, t0: new Float64Array(size), t1: new Float64Array(size), row: new Uint32Array(size), hollow: new Uint8Array(size) }));
  for (let i = 0; i < out.style.length; i++) {
    const list = lists[out.style[i]!]!;
    list.t0[list.n] = out.t0[i]!;
    list.t1[list.n] = out.t1[i]!;
    list.row[list.n] = out.row[i]!;
    list.hollow[list.n] = out.hollow[i]!;
    list.n++;
  }
  return lists;
}

function placeSpans(data: WindowColumns, l: MarkLayout): PlacedSpans {
  const s = data.spans;
  const n = s.start.length;
  const placed: PlacedSpans = {
    n,
    d0: new Float64Array(n),
    d1: new Float64Array(n),
    row: new Int32Array(n),
    type: Uint8Array.from(s.type),
    open: Uint8Array.from(s.open),
    seq: Uint32Array.from(s.seq),
    text: [],
  };
  for (let i = 0; i < n; i++) {
    placed.d0[i] = l.map.toD(s.start[i]!);
    placed.d1[i] = l.map.toD(s.end[i]!);
    placed.row[i] = l.index.deepestRowOfLane[s.lane[i]!] ?? -1;
    const room = s.room[i];
    placed.text.push(`${l.palette.lanes.labels[s.label[i]!] ?? ""}${room ? ` · room ${room}` : ""}`);
  }
  return placed;
}
