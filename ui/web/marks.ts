// Turning a window answer into draw lists: one list per fill style, so a
// frame sets each colour once and then draws plain rectangles. Built when data
// arrives or rows open/close, never per frame.

import type { RowIndex, Row } from "./rows.js";
import type { Component, Lane, WindowColumns } from "./types.js";

export const COMPONENT_COLORS: Record<Component, string> = {
  scheduler: "#6f9cf0",
  transfer: "#4fc9a4",
  bootstrap: "#b48ef0",
  hicache: "#3cb6d8",
  kernels: "#93c56a",
  collectives: "#d7b55e",
  checksums: "#9aa6c8",
  logs: "#6b7394",
};
const HEADER_COLOR = "#8793b5";
const WARN_COLOR = "#f0a04b";
const ERROR_COLOR = "#f0506e";

const PALETTE: string[] = [...Object.values(COMPONENT_COLORS), HEADER_COLOR, WARN_COLOR, ERROR_COLOR];
const COMPONENT_INDEX = Object.fromEntries(Object.keys(COMPONENT_COLORS).map((c, i) => [c, i])) as Record<Component, number>;
const HEADER = PALETTE.length - 3;
const WARN = PALETTE.length - 2;
const ERROR = PALETTE.length - 1;
const LEVELS = [0.3, 0.5, 0.75, 1];

/** Fill styles, indexed palette * LEVELS.length + level. */
export const STYLES: string[] = PALETTE.flatMap((hex) => LEVELS.map((a) => withAlpha(hex, a)));

function withAlpha(hex: string, alpha: number): string {
  const n = parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255},${(n >> 8) & 255},${n & 255},${alpha})`;
}

export interface StyleList {
  n: number;
  t0: Float64Array;
  t1: Float64Array;
  row: Uint32Array;
}

export interface Marks {
  data: WindowColumns;
  lists: StyleList[];
}

function paletteOf(row: Row, laneComponent: Component, tone: number): number {
  if (tone === 2) return ERROR;
  if (tone === 1) return WARN;
  return row.depth === 2 ? COMPONENT_INDEX[laneComponent] : HEADER;
}

export function buildMarks(data: WindowColumns, lanes: Lane[], rows: Row[], index: RowIndex): Marks {
  // Pass 1 gathers (row, t0, t1, style) into flat arrays; pass 2 splits them by style.
  const rowOut: number[] = [];
  const t0Out: number[] = [];
  const t1Out: number[] = [];
  const styleOut: number[] = [];
  if (data.mode === "events") {
    for (let i = 0; i < data.seq.length; i++) {
      const lane = data.lane[i]!;
      for (const r of index.rowsOfLane[lane] ?? []) {
        rowOut.push(r);
        t0Out.push(data.ts[i]!);
        t1Out.push(data.ts[i]!);
        styleOut.push(paletteOf(rows[r]!, lanes[lane]!.component, data.tone[i]!) * LEVELS.length + LEVELS.length - 1);
      }
    }
  } else {
    const B = data.buckets;
    const counts = new Uint32Array(rows.length * B);
    const tones = new Uint8Array(rows.length * B);
    const component: (Component | null)[] = rows.map((r) => r.component);
    for (let i = 0; i < data.lane.length; i++) {
      for (const r of index.rowsOfLane[data.lane[i]!] ?? []) {
        const cell = r * B + data.bucket[i]!;
        counts[cell]! += data.count[i]!;
        if (data.tone[i]! > tones[cell]!) tones[cell] = data.tone[i]!;
      }
    }
    const maxByDepth = [1, 1, 1];
    rows.forEach((row, r) => {
      for (let b = 0; b < B; b++) maxByDepth[row.depth] = Math.max(maxByDepth[row.depth]!, counts[r * B + b]!);
    });
    rows.forEach((row, r) => {
      const logMax = Math.log1p(maxByDepth[row.depth]!);
      for (let b = 0; b < B; b++) {
        const c = counts[r * B + b]!;
        if (c === 0) continue;
        const level = Math.min(LEVELS.length - 1, Math.floor((Math.log1p(c) / logMax) * LEVELS.length));
        const palette = paletteOf(row, component[r] ?? "logs", tones[r * B + b]!);
        rowOut.push(r);
        t0Out.push(data.fromUs + b * data.bucketUs);
        t1Out.push(data.fromUs + (b + 1) * data.bucketUs);
        styleOut.push(palette * LEVELS.length + level);
      }
    });
  }
  const sizes = new Uint32Array(STYLES.length);
  for (const s of styleOut) sizes[s]!++;
  const lists: StyleList[] = Array.from(sizes, (size) => ({
    n: 0,
    t0: new Float64Array(size),
    t1: new Float64Array(size),
    row: new Uint32Array(size),
  }));
  for (let i = 0; i < styleOut.length; i++) {
    const list = lists[styleOut[i]!]!;
    list.t0[list.n] = t0Out[i]!;
    list.t1[list.n] = t1Out[i]!;
    list.row[list.n] = rowOut[i]!;
    list.n++;
  }
  return { data, lists };
}
