// The time axis above the lanes: offsets from the incident's first event,
// with as many digits as the tick step needs.

import { axisTop, scaleLinear, select } from "d3";
import { formatOffset } from "./format.js";

export function renderAxis(svg: SVGSVGElement, d0: number, d1: number, originUs: number, width: number): void {
  const rel = scaleLinear()
    .domain([d0 - originUs, d1 - originUs])
    .range([0, width]);
  const ticks = rel.ticks(Math.max(2, Math.floor(width / 110)));
  const step = ticks.length > 1 ? ticks[1]! - ticks[0]! : d1 - d0;
  select(svg)
    .selectAll<SVGGElement, unknown>("g.ticks")
    .data([0])
    .join("g")
    .attr("class", "ticks")
    .attr("transform", "translate(0, 22)")
    .call(
      axisTop(rel)
        .tickValues(ticks)
        .tickFormat((v) => formatOffset(Number(v), step))
        .tickSizeOuter(0),
    );
}
