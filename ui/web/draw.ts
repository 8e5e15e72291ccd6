// One frame of the timeline on canvas: row backgrounds, folded gaps, spans,
// event marks or density buckets, names beside marks where there is room
// (Perfetto-style), the witness band and highlights, the selected room's flow
// arrows, the counter tracks (counter-tracks.ts), the selection and the time cursor. Plain rectangles, text and
// paths; nothing here allocates per event.

import type { TimeMap } from "../view/timemap.js";
import { SPAN_TYPES } from "../view/spanTypes.js";
import type { Marks, Palette } from "./marks.js";
import type { Row, RowIndex } from "./rows.js";
import type { CounterPoints, CounterTrack, PlacedWitness, RoomFlow } from "./types.js";
import { drawCounterTracks } from "./counter-tracks.js";

export interface Frame {
  width: number;
  height: number;
  scrollTop: number;
  /** Screen x = (displayTime - d0) * scale. */
  d0: number;
  scale: number;
  map: TimeMap;
  rows: Row[];
  index: RowIndex;
  marks: Marks | null;
  palette: Palette;
  labels: boolean;
  witness: PlacedWitness[];
  selected: { tsUs: number; lane: number } | null;
  flow: RoomFlow | null;
  cursorTsUs: number | null;
  counterPoints: Map<number, CounterPoints>;
  counterTracks: CounterTrack[];
}

export const COLORS = {
  background: "#11141b",
  rowAlt: "#141822",
  header: "#1a1f2b",
  separator: "#252b3a",
  gap: "#1b1f2a",
  gapLine: "#3a4254",
  label: "#e4e8f2",
  witness: "#ff5ccd",
  witnessBand: "rgba(255, 92, 205, 0.08)",
  selection: "#ffffff",
  flow: "#7dcfff",
  cursor: "#ffc857",
};

const SPAN_BAR = 4;
const LABEL_FONT = "9.5px ui-monospace, SFMono-Regular, Menlo, monospace";

/** Text widths by string: the same few names are measured once. */
const widths = new Map<string, number>();
function textWidth(ctx: CanvasRenderingContext2D, s: string): number {
  let w = widths.get(s);
  if (w === undefined) {
    w = ctx.measureText(s).width;
    if (widths.size < 5000) widths.set(s, w);
  }
  return w;
}

/** Draws a frame; returns how many counter tracks had a line drawn. */
export function drawFrame(ctx: CanvasRenderingContext2D, f: Frame): number {
  ctx.fillStyle = COLORS.background;
  ctx.fillRect(0, 0, f.width, f.height);
  const first = firstVisibleRow(f.rows, f.scrollTop);
  for (let r = first; r < f.rows.length; r++) {
    const row = f.rows[r]!;
    const y = row.y - f.scrollTop;
    if (y > f.height) break;
    if (row.depth < 2) {
      ctx.fillStyle = COLORS.header;
      ctx.fillRect(0, y, f.width, row.h);
    } else if (r % 2) {
      ctx.fillStyle = COLORS.rowAlt;
      ctx.fillRect(0, y, f.width, row.h);
    }
    ctx.fillStyle = COLORS.separator;
    ctx.fillRect(0, y + row.h - 1, f.width, 1);
  }
  drawFolds(ctx, f);
  if (f.witness.length) drawWitnessBand(ctx, f);
  if (f.marks) {
    // Where names are written, per row, so that no two overlap.
    const written = new Map<number, [number, number][]>();
    drawSpans(ctx, f);
    drawMarks(ctx, f);
    // Names last, over bars and marks: spans' first (they are fewer and longer), then events'.
    if (f.labels) drawSpanLabels(ctx, f, written);
    if (f.labels && f.marks.data.mode === "events") drawLabels(ctx, f, first, written);
  }
  const tracks = drawCounterTracks(ctx, f, f.counterPoints, f.counterTracks);
  if (f.flow) drawFlow(ctx, f);
  if (f.witness.length) drawWitness(ctx, f);
  if (f.selected) {
    const row = f.rows[f.index.deepestRowOfLane[f.selected.lane] ?? -1];
    if (row) {
      ctx.strokeStyle = COLORS.selection;
      ctx.lineWidth = 1.5;
      ctx.strokeRect(Math.round(xOfTime(f, f.selected.tsUs)) - 4.5, row.y - f.scrollTop + 0.5, 9, row.h - 2);
    }
  }
  if (f.cursorTsUs !== null) {
    const x = Math.round(xOfTime(f, f.cursorTsUs)) + 0.5;
    ctx.strokeStyle = COLORS.cursor;
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(x, 0);
    ctx.lineTo(x, f.height);
    ctx.stroke();
  }
  return tracks;
}

/** x of a real time. */
export function xOfTime(f: Pick<Frame, "map" | "d0" | "scale">, tsUs: number): number {
  return (f.map.toD(tsUs) - f.d0) * f.scale;
}

function firstVisibleRow(rows: Row[], scrollTop: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const row = rows[mid]!;
    if (row.y + row.h <= scrollTop) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A folded gap: a darker band with two thin edges (the time axis says how long it was). */
function drawFolds(ctx: CanvasRenderingContext2D, f: Frame): void {
  for (const g of f.map.folded) {
    const x0 = (g.d0 - f.d0) * f.scale;
    const x1 = (g.d1 - f.d0) * f.scale;
    if (x1 < 0 || x0 > f.width) continue;
    ctx.fillStyle = COLORS.gap;
    ctx.fillRect(x0, 0, Math.max(1, x1 - x0), f.height);
    ctx.fillStyle = COLORS.gapLine;
    ctx.fillRect(Math.round(x0), 0, 1, f.height);
    ctx.fillRect(Math.round(x1), 0, 1, f.height);
  }
}

function drawMarks(ctx: CanvasRenderingContext2D, f: Frame): void {
  const marks = f.marks!;
  const events = marks.data.mode === "events";
  const rowY = f.rows.map((r) => r.y - f.scrollTop);
  // The last pixel column drawn per row in this style: a mark on the same pixel adds nothing.
  const lastX = new Int32Array(f.rows.length);
  for (let s = 0; s < marks.lists.length; s++) {
    const list = marks.lists[s]!;
    if (list.n === 0) continue;
    ctx.fillStyle = f.palette.styles[s]!;
    ctx.strokeStyle = f.palette.styles[s]!;
    lastX.fill(-1e9);
    for (let i = 0; i < list.n; i++) {
      const r = list.row[i]!;
      const y = rowY[r]!;
      const h = f.rows[r]!.h;
      if (y + h < 0 || y > f.height) continue;
      const x0 = (list.t0[i]! - f.d0) * f.scale;
      if (events) {
        if (x0 < -2 || x0 > f.width + 2) continue;
        const px = Math.round(x0);
        if (px === lastX[r]) continue;
        lastX[r] = px;
        // A time inferred or unknown is an outline: it is not where the record says it happened.
        if (list.hollow[i]) ctx.strokeRect(px - 1.5, y + 2.5, 3, h - 6);
        else ctx.fillRect(px - 1, y + 2, 3, h - 5);
      } else {
        const x1 = (list.t1[i]! - f.d0) * f.scale;
        if (x1 < 0 || x0 > f.width) continue;
        ctx.fillRect(x0, y + 2, Math.max(1, x1 - x0), h - 5);
      }
    }
  }
}

/** How close (px) a name must stand to the same name on the row above to be its repeat. */
const REPEAT_PX = 4;

/**
 * The names met row by row (rows in ascending order): a name standing within
 * REPEAT_PX of the same name on the row just above repeats it — a group's row
 * and its rank's, the eight ranks of one collective — and is written once.
 */
class RowRepeats {
  private readonly byName = new Map<string, { row: number; xs: number[]; above: number[] }>();

  /** Records the name at (row, x), written or not; true when the row above had it there. */
  seen(name: string, row: number, x: number): boolean {
    let s = this.byName.get(name);
    if (!s) this.byName.set(name, (s = { row, xs: [], above: [] }));
    if (s.row !== row) {
      s.above = s.row === row - 1 ? s.xs : [];
      s.row = row;
      s.xs = [];
    }
    s.xs.push(x);
    return s.above.some((x0) => Math.abs(x0 - x) <= REPEAT_PX);
  }
}

/** Names right of marks, where the gap to the next mark in the row leaves room for them. */
const overlaps = (taken: [number, number][] | undefined, x0: number, x1: number) => taken?.some(([a, b]) => x0 < b && x1 > a) ?? false;

function drawLabels(ctx: CanvasRenderingContext2D, f: Frame, firstRow: number, written: Map<number, [number, number][]>): void {
  ctx.font = LABEL_FONT;
  ctx.fillStyle = COLORS.label;
  ctx.textBaseline = "middle";
  const repeats = new RowRepeats();
  for (let r = firstRow; r < f.rows.length; r++) {
    const row = f.rows[r]!;
    const y = row.y - f.scrollTop;
    if (y > f.height) break;
    if (row.h < 13) continue;
    const { t, text } = f.marks!.labels[r]!;
    let i = lowerBound(t, f.d0 - 200 / f.scale);
    let drawnTo = -Infinity;
    for (; i < t.length; i++) {
      const x = (t[i]! - f.d0) * f.scale;
      if (x > f.width) break;
      const next = i + 1 < t.length ? (t[i + 1]! - f.d0) * f.scale : f.width + 200;
      if (!text[i]) continue;
      const w = textWidth(ctx, text[i]!);
      // A name that would run off the canvas's right edge is left out, not cut.
      if (x + 4 < drawnTo || next - x < w + 9 || x + 4 + w > f.width || overlaps(written.get(r), x + 4, x + 4 + w)) continue;
      if (repeats.seen(text[i]!, r, x)) continue;
      ctx.fillText(text[i]!, x + 4, y + row.h / 2 - 0.5);
      drawnTo = x + 4 + w;
    }
  }
}

function lowerBound(a: Float64Array, v: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A span's place on screen, or null when it is out of view. */
function spanBox(f: Frame, i: number): { r: number; x0: number; x1: number; barY: number; h: number } | null {
  const s = f.marks!.spans;
  const r = s.row[i]!;
  const row = f.rows[r];
  if (!row) return null;
  const y = row.y - f.scrollTop;
  if (y + row.h < 0 || y > f.height) return null;
  const x0 = Math.max(-2, (s.d0[i]! - f.d0) * f.scale);
  const x1 = Math.min(f.width + 2, (s.d1[i]! - f.d0) * f.scale);
  if (x1 < 0 || x0 > f.width) return null;
  return { r, x0, x1, barY: y + row.h - SPAN_BAR - 1, h: row.h };
}

/** Spans as bars along the bottom of their row, open ones dashed. */
function drawSpans(ctx: CanvasRenderingContext2D, f: Frame): void {
  const s = f.marks!.spans;
  for (let i = 0; i < s.n; i++) {
    const b = spanBox(f, i);
    if (!b) continue;
    const type = SPAN_TYPES[s.type[i]!] ?? SPAN_TYPES[0]!;
    ctx.fillStyle = type.colour;
    if (type.outlined) drawOutlined(ctx, b.x0, b.barY, Math.max(2, b.x1 - b.x0));
    else if (s.open[i]) for (let x = b.x0; x < b.x1; x += 8) ctx.fillRect(x, b.barY, Math.min(5, b.x1 - x), SPAN_BAR);
    else ctx.fillRect(b.x0, b.barY, Math.max(1, b.x1 - b.x0), SPAN_BAR);
  }
}

/**
 * Each span named inside its bar where the name fits within the bar and the
 * canvas. The same name at the same place as on the row just above (eight
 * ranks waiting in one collective) is written once, on the first of them.
 */
function drawSpanLabels(ctx: CanvasRenderingContext2D, f: Frame, written: Map<number, [number, number][]>): void {
  const s = f.marks!.spans;
  ctx.font = LABEL_FONT;
  ctx.textBaseline = "bottom";
  ctx.fillStyle = COLORS.label;
  const names: { text: string; at: number; w: number; r: number; y: number }[] = [];
  for (let i = 0; i < s.n; i++) {
    const text = s.text[i]!;
    const b = text ? spanBox(f, i) : null;
    if (!b || b.h < 13) continue;
    const w = textWidth(ctx, text);
    const at = Math.max(b.x0, 0) + 8;
    if (Math.min(b.x1, f.width) - at >= w + 3) names.push({ text, at, w, r: b.r, y: b.barY });
  }
  // In row order, so that a repeat is known by the row above it.
  names.sort((a, b) => a.r - b.r);
  const repeats = new RowRepeats();
  for (const n of names) {
    const taken = written.get(n.r);
    if (overlaps(taken, n.at - 4, n.at + n.w + 4)) continue;
    if (repeats.seen(n.text, n.r, n.at)) continue;
    ctx.fillText(n.text, n.at, n.y);
    if (taken) taken.push([n.at - 4, n.at + n.w + 4]);
    else written.set(n.r, [[n.at - 4, n.at + n.w + 4]]);
  }
}

/** A span that should have ended and did not: its outline over a sparse hatch, so it reads apart from filled bars. */
function drawOutlined(ctx: CanvasRenderingContext2D, x: number, y: number, w: number): void {
  ctx.fillRect(x, y - 1, w, 1);
  ctx.fillRect(x, y + SPAN_BAR, w, 1);
  ctx.fillRect(x, y - 1, 1, SPAN_BAR + 2);
  ctx.fillRect(x + w - 1, y - 1, 1, SPAN_BAR + 2);
  for (let hx = x + 3; hx < x + w - 1; hx += 4) ctx.fillRect(hx, y + 1, 1, SPAN_BAR - 2);
}

function drawWitnessBand(ctx: CanvasRenderingContext2D, f: Frame): void {
  let lo = Infinity;
  let hi = -Infinity;
  for (const w of f.witness) {
    lo = Math.min(lo, w.tsUs);
    hi = Math.max(hi, w.tsUs);
  }
  const x0 = xOfTime(f, lo) - 6;
  const x1 = xOfTime(f, hi) + 6;
  ctx.fillStyle = COLORS.witnessBand;
  ctx.fillRect(x0, 0, x1 - x0, f.height);
}

function drawWitness(ctx: CanvasRenderingContext2D, f: Frame): void {
  ctx.strokeStyle = COLORS.witness;
  ctx.fillStyle = COLORS.witness;
  ctx.lineWidth = 2;
  for (const w of f.witness) {
    const row = f.rows[f.index.deepestRowOfLane[w.lane] ?? -1];
    if (!row) continue;
    const x = Math.round(xOfTime(f, w.tsUs));
    const y = row.y - f.scrollTop;
    if (x < -8 || x > f.width + 8 || y + row.h < 0 || y > f.height) continue;
    ctx.fillRect(x - 1, y + 2, 3, row.h - 5);
    ctx.strokeRect(x - 5, y + 1, 10, row.h - 3);
  }
}

function drawFlow(ctx: CanvasRenderingContext2D, f: Frame): void {
  const flow = f.flow!;
  const at = new Map<number, { x: number; y: number }>();
  for (const ev of flow.events) {
    if (ev.lane === null) continue;
    const row = f.rows[f.index.deepestRowOfLane[ev.lane] ?? -1];
    if (row) at.set(ev.seq, { x: xOfTime(f, ev.tsUs), y: row.y - f.scrollTop + row.h / 2 - 1 });
  }
  ctx.strokeStyle = COLORS.flow;
  ctx.fillStyle = COLORS.flow;
  ctx.lineWidth = 1.25;
  ctx.font = "10px ui-monospace, SFMono-Regular, Menlo, monospace";
  ctx.textBaseline = "alphabetic";
  for (const edge of flow.edges) {
    const a = at.get(edge.from);
    const b = at.get(edge.to);
    if (!a || !b) continue;
    if (Math.max(a.x, b.x) < 0 || Math.min(a.x, b.x) > f.width) continue;
    const bend = Math.min(40, Math.abs(b.x - a.x) / 2 + 10);
    // Events of one instant on different rows: bow the arrow sideways, off the cursor line.
    const cx = Math.abs(b.x - a.x) < 6 ? a.x + Math.min(48, 12 + Math.abs(b.y - a.y) / 4) : (a.x + b.x) / 2;
    const cy = a.y === b.y ? a.y - bend : (a.y + b.y) / 2;
    ctx.beginPath();
    ctx.moveTo(a.x, a.y);
    ctx.quadraticCurveTo(cx, cy, b.x, b.y);
    ctx.stroke();
    const angle = Math.atan2(b.y - cy, b.x - cx);
    ctx.beginPath();
    ctx.moveTo(b.x, b.y);
    ctx.lineTo(b.x - 7 * Math.cos(angle - 0.4), b.y - 7 * Math.sin(angle - 0.4));
    ctx.lineTo(b.x - 7 * Math.cos(angle + 0.4), b.y - 7 * Math.sin(angle + 0.4));
    ctx.closePath();
    ctx.fill();
    if (Math.abs(b.x - a.x) > 60) ctx.fillText(edge.label, cx + 3, (a.y + b.y) / 2 - 3);
  }
}
