// Counter tracks on the canvas: in a lane row with tracks, one band per
// series, its points as one polyline scaled to the band (a gauge's value, a
// counter's rate per second), with the least and greatest value in view
// written at the band's right edge; and which sample is under the pointer.
// One path per track, never a node per sample.

import type { Frame } from "./draw.js";
import { TRACK_HEIGHT, type Row } from "./rows.js";
import type { CounterPoints, CountersAnswer, CounterTrack } from "./types.js";

export const TRACK_COLORS = { gauge: "#c792ea", rate: "#ffcb6b", scale: "#8a93ad", band: "#1f2533" };
const SCALE_FONT = "9px ui-monospace, SFMono-Regular, Menlo, monospace";
/** Room above and below the line within a band. */
const PAD = 4;
const REACH_PX = 6;

/** What of a frame the tracks are drawn in (draw.ts Frame). */
export type TrackView = Pick<Frame, "width" | "height" | "scrollTop" | "d0" | "scale" | "map" | "rows">;

/** The points of each track, by track id. */
export function pointsByTrack(data: CountersAnswer | null): Map<number, CounterPoints> {
  return new Map((data?.tracks ?? []).map((t) => [t.track, t]));
}

/** A value for the band's edge: short, and a rate per second says so. */
export function formatValue(v: number, rate: boolean): string {
  const abs = Math.abs(v);
  const s = abs !== 0 && (abs < 0.01 || abs >= 1e6) ? v.toExponential(2) : String(Number(v.toPrecision(4)));
  return rate ? `${s}/s` : s;
}

/** Draws every visible band; returns how many tracks had a line drawn. */
export function drawCounterTracks(ctx: CanvasRenderingContext2D, v: TrackView, points: Map<number, CounterPoints>, tracks: CounterTrack[]): number {
  let drawn = 0;
  ctx.font = SCALE_FONT;
  for (const row of v.rows) {
    if (!row.tracks.length) continue;
    const top = row.y - v.scrollTop;
    if (top + row.h < 0 || top > v.height) continue;
    row.tracks.forEach((track, k) => {
      const y0 = top + k * TRACK_HEIGHT;
      if (k > 0) {
        ctx.fillStyle = TRACK_COLORS.band;
        ctx.fillRect(0, y0, v.width, 1);
      }
      const p = points.get(track);
      if (p && drawTrack(ctx, v, p, tracks[track]?.rate ?? false, y0)) drawn++;
    });
  }
  return drawn;
}

function drawTrack(ctx: CanvasRenderingContext2D, v: TrackView, p: CounterPoints, rate: boolean, y0: number): boolean {
  const x = p.ts.map((t) => (v.map.toD(t) - v.d0) * v.scale);
  // Scaled to what is in view, with the points just outside it that carry the line to the edges.
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < x.length; i++) {
    if (x[i]! < 0 || x[i]! > v.width) continue;
    lo = Math.min(lo, p.value[i]!);
    hi = Math.max(hi, p.value[i]!);
  }
  if (lo > hi) return false;
  const bottom = y0 + TRACK_HEIGHT - PAD;
  const span = TRACK_HEIGHT - 2 * PAD;
  const yOf = (value: number) => (hi === lo ? bottom : bottom - ((value - lo) / (hi - lo)) * span);
  ctx.strokeStyle = rate ? TRACK_COLORS.rate : TRACK_COLORS.gauge;
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  let started = false;
  for (let i = 0; i < x.length; i++) {
    const px = Math.max(-4, Math.min(v.width + 4, x[i]!));
    if (started) ctx.lineTo(px, yOf(p.value[i]!));
    else ctx.moveTo(px, yOf(p.value[i]!));
    started = true;
  }
  if (x.length === 1) ctx.lineTo(x[0]! + 2, yOf(p.value[0]!));
  ctx.stroke();
  ctx.fillStyle = TRACK_COLORS.scale;
  ctx.textAlign = "right";
  ctx.textBaseline = "top";
  ctx.fillText(formatValue(hi, rate), v.width - 3, y0 + 1);
  ctx.textBaseline = "bottom";
  ctx.fillText(formatValue(lo, rate), v.width - 3, y0 + TRACK_HEIGHT - 1);
  ctx.textAlign = "left";
  return true;
}

export interface SampleHit {
  track: number;
  seq: number;
  tsUs: number;
  value: number;
}

/** The sample nearest the pointer in the band under it, within a few pixels. `yInRow`: the pointer's height below the row's top. */
export function hitSample(row: Row, yInRow: number, px: number, v: Pick<TrackView, "d0" | "scale" | "map">, points: Map<number, CounterPoints>): SampleHit | null {
  const track = row.tracks[Math.floor(yInRow / TRACK_HEIGHT)];
  const p = track === undefined ? undefined : points.get(track);
  if (!p) return null;
  let best = -1;
  let bestDx = REACH_PX;
  for (let i = 0; i < p.ts.length; i++) {
    const dx = Math.abs((v.map.toD(p.ts[i]!) - v.d0) * v.scale - px);
    if (dx <= bestDx) {
      best = i;
      bestDx = dx;
    }
  }
  return best < 0 ? null : { track: track!, seq: p.seq[best]!, tsUs: p.ts[best]!, value: p.value[best]! };
}
