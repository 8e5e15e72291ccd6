// The time axis above the lanes: UTC wall-clock time, the reference every
// finding and line is given in, with as many digits as the tick step needs;
// each tick's tooltip gives its offset from the incident's first event.
// Where a stretch with no event is folded, the axis says how long it was,
// and each side keeps its own ticks.

import { scaleLinear, scaleUtc, select } from "d3";
import type { TimeMap } from "../view/timemap.js";
import { formatClock, formatDuration, formatOffset } from "./format.js";

export interface AxisView {
  /** The visible display span. */
  d0: number;
  d1: number;
  map: TimeMap;
  originUs: number;
  width: number;
  /** Where records of unknown time are drawn (apart, before the dated ones), or null. */
  unknownUs: number | null;
}

interface Tick {
  key: string;
  x: number;
  text: string;
  /** The tooltip: the offset from the first event, or how long a fold is. */
  title: string;
  fold: boolean;
}

const PX_PER_TICK = 110;
/** The "time unknown" label's width, half a clock label's (`14:01:00`, the widest at 11 px) and the gap kept between labels, in px. */
const UNKNOWN_LABEL_PX = 72;
const CLOCK_LABEL_HALF_PX = 28;
const LABEL_GAP_PX = 6;

/** Where the "time unknown" label spans: centred on its tick, or starting at it where centring would cut it at the left edge. */
function unknownLabelSpan(x: number): [number, number] {
  return x < UNKNOWN_LABEL_PX / 2 ? [x, x + UNKNOWN_LABEL_PX] : [x - UNKNOWN_LABEL_PX / 2, x + UNKNOWN_LABEL_PX / 2];
}

export function renderAxis(svg: SVGSVGElement, v: AxisView): void {
  const scale = v.width / (v.d1 - v.d0);
  const xOfD = (d: number) => (d - v.d0) * scale;
  const ticks: Tick[] = [];
  const unknownD = v.unknownUs === null ? null : v.map.toD(v.unknownUs);
  const unknownX = unknownD !== null && unknownD >= v.d0 && unknownD <= v.d1 ? xOfD(unknownD) : null;
  const unknownSpan = unknownX === null ? null : unknownLabelSpan(unknownX);
  // A clock label that would overlap the "time unknown" label is left out.
  const clearOfUnknown = (x: number): boolean =>
    unknownSpan === null || x + CLOCK_LABEL_HALF_PX + LABEL_GAP_PX <= unknownSpan[0] || x - CLOCK_LABEL_HALF_PX - LABEL_GAP_PX >= unknownSpan[1];
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
    const { values, step } = wallClockTicks(v.map.toT(a), v.map.toT(b), Math.max(1, Math.floor(px / PX_PER_TICK)));
    const x = scaleLinear().domain([v.map.toT(a), v.map.toT(b)]).range([xOfD(a), xOfD(b)]);
    for (const t of values) {
      // Before the first dated record lies only the place of the undated ones: no clock time there.
      if (v.unknownUs !== null && t < v.originUs) continue;
      if (!clearOfUnknown(x(t))) continue;
      ticks.push({ key: `t${t}`, x: x(t), text: formatClock(t, step), title: `${formatOffset(t - v.originUs, step)} from the first event`, fold: false });
    }
  }
  if (unknownX !== null) ticks.push({ key: "unknown", x: unknownX, text: "time unknown", title: "records whose file has no dated line, drawn apart from the dated ones", fold: true });
  for (const g of folds) {
    const x = (xOfD(g.d0) + xOfD(g.d1)) / 2;
    const w = xOfD(g.d1) - xOfD(g.d0);
    const text = `⋯ ${formatDuration(g.to - g.from)} ⋯`;
    ticks.push({ key: `g${g.from}`, x, text: w > 44 ? text : "⋯", title: `${formatDuration(g.to - g.from)} without an event, folded`, fold: true });
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
    .attr("text-anchor", (t) => (t.key === "unknown" && t.x < UNKNOWN_LABEL_PX / 2 ? "start" : "middle"))
    // Setting the text replaces the tooltip of the last render too.
    .text((t) => t.text)
    .append("title")
    .text((t) => t.title);
}

/**
 * Round wall-clock times in [fromUs, toUs]: whole seconds, minutes and hours
 * (d3's UTC time ticks) from a millisecond step up, round microseconds below.
 */
function wallClockTicks(fromUs: number, toUs: number, count: number): { values: number[]; step: number } {
  const ms = scaleUtc().domain([new Date(fromUs / 1000), new Date(toUs / 1000)]).ticks(count).map((d) => d.getTime() * 1000);
  const values = ms.length > 1 && ms[1]! - ms[0]! >= 1000 ? ms : scaleLinear().domain([fromUs, toUs]).ticks(count);
  return { values, step: values.length > 1 ? values[1]! - values[0]! : toUs - fromUs };
}
