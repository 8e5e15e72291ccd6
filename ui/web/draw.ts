// One frame of the timeline on canvas: row backgrounds, event marks or density
// buckets, the witness band and highlights, the selected room's flow arrows,
// the selection and the time cursor. Plain rectangles and paths; nothing here
// allocates per event.

import { STYLES, type Marks } from "./marks.js";
import type { Row, RowIndex } from "./rows.js";
import type { PlacedWitness, RoomFlow } from "./types.js";

export interface Frame {
  width: number;
  height: number;
  scrollTop: number;
  /** Screen x = (tsUs - d0) * scale. */
  d0: number;
  scale: number;
  rows: Row[];
  index: RowIndex;
  marks: Marks | null;
  witness: PlacedWitness[];
  selected: { tsUs: number; lane: number } | null;
  flow: RoomFlow | null;
  cursorTsUs: number | null;
}

export const COLORS = {
  background: "#11141b",
  rowAlt: "#141822",
  header: "#1a1f2b",
  separator: "#252b3a",
  witness: "#ff5ccd",
  witnessBand: "rgba(255, 92, 205, 0.08)",
  selection: "#ffffff",
  flow: "#7dcfff",
  cursor: "#ffc857",
};

export function drawFrame(ctx: CanvasRenderingContext2D, f: Frame): void {
  const { width, height, scrollTop } = f;
  const xOf = (ts: number) => (ts - f.d0) * f.scale;
  ctx.fillStyle = COLORS.background;
  ctx.fillRect(0, 0, width, height);

  const first = firstVisibleRow(f.rows, scrollTop);
  for (let r = first; r < f.rows.length; r++) {
    const row = f.rows[r]!;
    const y = row.y - scrollTop;
    if (y > height) break;
    if (row.depth < 2) {
      ctx.fillStyle = COLORS.header;
      ctx.fillRect(0, y, width, row.h);
    } else if (r % 2) {
      ctx.fillStyle = COLORS.rowAlt;
      ctx.fillRect(0, y, width, row.h);
    }
    ctx.fillStyle = COLORS.separator;
    ctx.fillRect(0, y + row.h - 1, width, 1);
  }

  if (f.witness.length) drawWitnessBand(ctx, f, xOf);
  if (f.marks) drawMarks(ctx, f, xOf);
  if (f.flow) drawFlow(ctx, f, xOf);
  if (f.witness.length) drawWitness(ctx, f, xOf);
  if (f.selected) {
    const r = f.index.deepestRowOfLane[f.selected.lane] ?? -1;
    const row = f.rows[r];
    if (row) {
      ctx.strokeStyle = COLORS.selection;
      ctx.lineWidth = 1.5;
      ctx.strokeRect(Math.round(xOf(f.selected.tsUs)) - 4.5, row.y - scrollTop + 0.5, 9, row.h - 2);
    }
  }
  if (f.cursorTsUs !== null) {
    const x = Math.round(xOf(f.cursorTsUs)) + 0.5;
    ctx.strokeStyle = COLORS.cursor;
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(x, 0);
    ctx.lineTo(x, height);
    ctx.stroke();
  }
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

function drawMarks(ctx: CanvasRenderingContext2D, f: Frame, xOf: (ts: number) => number): void {
  const marks = f.marks!;
  const events = marks.data.mode === "events";
  const rowY = f.rows.map((r) => r.y - f.scrollTop);
  const rowH = f.rows.map((r) => r.h);
  for (let s = 0; s < marks.lists.length; s++) {
    const list = marks.lists[s]!;
    if (list.n === 0) continue;
    ctx.fillStyle = STYLES[s]!;
    for (let i = 0; i < list.n; i++) {
      const r = list.row[i]!;
      const y = rowY[r]!;
      const h = rowH[r]!;
      if (y + h < 0 || y > f.height) continue;
      const x0 = xOf(list.t0[i]!);
      if (events) {
        if (x0 < -2 || x0 > f.width + 2) continue;
        ctx.fillRect(Math.round(x0) - 1, y + 2, 3, h - 5);
      } else {
        const x1 = xOf(list.t1[i]!);
        if (x1 < 0 || x0 > f.width) continue;
        ctx.fillRect(x0, y + 2, Math.max(1, x1 - x0), h - 5);
      }
    }
  }
}

function drawWitnessBand(ctx: CanvasRenderingContext2D, f: Frame, xOf: (ts: number) => number): void {
  let lo = Infinity;
  let hi = -Infinity;
  for (const w of f.witness) {
    lo = Math.min(lo, w.tsUs);
    hi = Math.max(hi, w.tsUs);
  }
  const x0 = xOf(lo) - 6;
  const x1 = xOf(hi) + 6;
  ctx.fillStyle = COLORS.witnessBand;
  ctx.fillRect(x0, 0, x1 - x0, f.height);
}

function drawWitness(ctx: CanvasRenderingContext2D, f: Frame, xOf: (ts: number) => number): void {
  ctx.strokeStyle = COLORS.witness;
  ctx.fillStyle = COLORS.witness;
  ctx.lineWidth = 2;
  for (const w of f.witness) {
    const row = f.rows[f.index.deepestRowOfLane[w.lane] ?? -1];
    if (!row) continue;
    const x = Math.round(xOf(w.tsUs));
    const y = row.y - f.scrollTop;
    if (x < -8 || x > f.width + 8 || y + row.h < 0 || y > f.height) continue;
    ctx.fillRect(x - 1, y + 2, 3, row.h - 5);
    ctx.strokeRect(x - 5, y + 1, 10, row.h - 3);
  }
}

function drawFlow(ctx: CanvasRenderingContext2D, f: Frame, xOf: (ts: number) => number): void {
  const flow = f.flow!;
  const at = new Map<number, { x: number; y: number }>();
  for (const ev of flow.events) {
    if (ev.lane === null) continue;
    const row = f.rows[f.index.deepestRowOfLane[ev.lane] ?? -1];
    if (row) at.set(ev.seq, { x: xOf(ev.tsUs), y: row.y - f.scrollTop + row.h / 2 - 1 });
  }
  ctx.strokeStyle = COLORS.flow;
  ctx.fillStyle = COLORS.flow;
  ctx.lineWidth = 1.25;
  ctx.font = "10px ui-monospace, SFMono-Regular, Menlo, monospace";
  for (const edge of flow.edges) {
    const a = at.get(edge.from);
    const b = at.get(edge.to);
    if (!a || !b) continue;
    if (Math.max(a.x, b.x) < 0 || Math.min(a.x, b.x) > f.width) continue;
    const bend = Math.min(40, Math.abs(b.x - a.x) / 2 + 10);
    const cx = (a.x + b.x) / 2;
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
