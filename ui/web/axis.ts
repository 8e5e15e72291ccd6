// The time axis above the lanes: offsets from the incident's first event,
// with as many digits as the tick step needs. Where a stretch with no event
// is folded, the axis says how long it was, and each side keeps its own ticks.

import { scaleLinear, select } from "d3";
import type { TimeMap } from "../view/timemap.js";
import { formatDuration, formatOffset } from "./format.js";

export interface AxisView {
  /** The visible display span. */
  d0: number;
  d1: number;
  map: TimeMap;
  originUs: number;
  width: number;
}

interface Tick {
  key: string;
  x: number;
  text: string;
  fold: boolean;
}

const PX_PER_TICK = 110;

export function renderAxis(svg: SVGSVGElement, v: AxisView): void {
  const scale = v.width / (v.d1 - v.d0);
  const xOfD = (d: number) => (d - v.d0) * scale;
  const ticks: Tick[] = [];
  // The unfolded stretches between folds, each an ordinary linear axis.
  const folds = v.map.folded.filter((g) => g.d1 > v.d0 && g.d0 < v.d1);
  const segments: [number, number][] = [];
  let from = v.d0;
  for (const g of folds) {
    segments.push([from, g.d0]);
    from = g.d1;
  }
  segments.push([from, v.d1]);
  for (const [a, b] of segments) {
    const px = xOfD(b) - xOfD(a);
    if (px < 40) continue;
    const real = scaleLinear().domain([v.map.toT(a) - v.originUs, v.map.toT(b) - v.originUs]).range([xOfD(a), xOfD(b)]);
    const values = real.ticks(Math.max(1, Math.floor(px / PX_PER_TICK)));
    const step = values.length > 1 ? values[1]! - values[0]! : b - a;
    for (const t of values) ticks.push({ key: `t${t}`, x: real(t), text: formatOffset(t, step), fold: false });
  }
  for (const g of folds) {
    const x = (xOfD(g.d0) + xOfD(g.d1)) / 2;
    const w = xOfD(g.d1) - xOfD(g.d0);
    ticks.push({ key: `g${g.from}`, x, text: w > 44 ? `⋯ ${formatDuration(g.to - g.from)} ⋯` : "⋯", fold: true });
  }
  select(svg)
    .selectAll<SVGGElement, Tick>("g.tick")
    .data(ticks, (t) => t.key)
    .join((enter) => {
      const g = enter.append("g").attr("class", "tick");
      g.append("line").attr("y1", 16).attr("y2", 22);
      g.append("text").attr("y", 12).attr("text-anchor", "middle");
      return g;
    })
    .attr("class", (t) => (t.fold ? "tick fold" : "tick"))
    .attr("transform", (t) => `translate(${t.x.toFixed(1)}, 0)`)
    .select("text")
    .text((t) => t.text);
}
