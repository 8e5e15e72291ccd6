// The whole incident at a glance, above the timeline: event density per lane
// group (failures in red, warnings in orange), the violated findings and a
// checked hypothesis's violations as flags, the folded gaps, and a brush that shows the timeline's window and
// sets it when dragged (d3-brush). Drawn in the same display time as the
// timeline, so a folded gap is folded here too.

import { brushX, select, type BrushBehavior, type D3BrushEvent } from "d3";
import type { FindingGroup } from "../view/findingGroups.js";
import { ERROR_COLOR, WARN_COLOR } from "../view/kindColors.js";
import { TimeMap } from "../view/timemap.js";
import { h } from "./dom.js";
import { LABEL_WIDTH } from "./timeline.js";
import type { OverviewAnswer } from "./types.js";

const ROW_H = 9;
const FLAG_ROW = 12;
const DENSITY = "#7d9be0";

export interface OverviewCallbacks {
  onBrush(fromUs: number, toUs: number): void;
  onFlag(findingId: string): void;
}

export class Overview {
  readonly element: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly svg: SVGSVGElement;
  private readonly brushG: SVGGElement;
  private readonly flags: HTMLElement;
  private readonly brush: BrushBehavior<unknown>;
  private width = 600;
  private map = TimeMap.identity;
  private groups: FindingGroup[] = [];
  private window: [number, number] | null = null;
  private moving = false;
  /** The brush is set up once the strip has a width. */
  private brushReady = false;

  constructor(
    private readonly data: OverviewAnswer,
    private readonly startUs: number,
    private readonly endUs: number,
    private readonly cb: OverviewCallbacks,
  ) {
    const height = FLAG_ROW + data.groups.length * ROW_H + 2;
    this.canvas = h("canvas", { class: "overview-canvas", "aria-hidden": "true" });
    this.svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    this.svg.classList.add("overview-brush");
    this.svg.setAttribute("aria-label", "overview: drag to choose the window");
    this.brushG = document.createElementNS("http://www.w3.org/2000/svg", "g");
    this.svg.appendChild(this.brushG);
    this.flags = h("div", { class: "overview-flags" });
    const names = h("div", { class: "overview-names" }, ...data.groups.map((g) => h("div", { class: "overview-name", style: `height:${ROW_H}px` }, g)));
    this.element = h(
      "div",
      { class: "overview", style: `height:${height}px` },
      h("div", { class: "overview-gutter", style: `width:${LABEL_WIDTH}px;padding-top:${FLAG_ROW}px` }, names),
      h("div", { class: "overview-plot" }, this.canvas, this.svg, this.flags),
    );
    this.canvas.height = height * (window.devicePixelRatio || 1);
    this.canvas.style.height = `${height}px`;
    this.svg.setAttribute("height", String(height));
    this.brush = brushX<unknown>().on("brush end", (ev: D3BrushEvent<unknown>) => this.brushed(ev));
    new ResizeObserver(() => this.resize()).observe(this.element);
  }

  setFolds(map: TimeMap): void {
    this.map = map;
    this.draw();
  }

  setFindings(groups: FindingGroup[]): void {
    this.groups = groups.filter((g) => g.lead.tsUs !== null || g.lead.placed.length > 0);
    this.draw();
  }

  /** Shows the timeline's window as the brush (without calling back). */
  setWindow(fromUs: number, toUs: number): void {
    this.window = [fromUs, toUs];
    this.placeBrush();
  }

  private x(tsUs: number): number {
    const d0 = this.map.toD(this.startUs);
    return ((this.map.toD(tsUs) - d0) / (this.map.toD(this.endUs) - d0)) * this.width;
  }

  private t(x: number): number {
    const d0 = this.map.toD(this.startUs);
    return this.map.toT(d0 + (x / this.width) * (this.map.toD(this.endUs) - d0));
  }

  private resize(): void {
    const plot = this.canvas.parentElement!;
    this.width = Math.max(100, plot.clientWidth);
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(this.width * dpr);
    this.canvas.style.width = `${this.width}px`;
    this.svg.setAttribute("width", String(this.width));
    this.brush.extent([
      [0, 0],
      [this.width, Number(this.svg.getAttribute("height"))],
    ]);
    select(this.brushG).call(this.brush);
    this.brushReady = true;
    this.draw();
    this.placeBrush();
  }

  private draw(): void {
    const ctx = this.canvas.getContext("2d")!;
    const dpr = window.devicePixelRatio || 1;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, this.width, this.canvas.height);
    const { buckets, fromUs, toUs } = this.data;
    const bucketUs = (toUs - fromUs) / buckets;
    const max = Math.max(1, ...this.data.count.flat());
    for (const g of this.map.folded) {
      ctx.fillStyle = "#1b1f2a";
      ctx.fillRect(this.x(g.from), 0, Math.max(1, this.x(g.to) - this.x(g.from)), this.canvas.height);
    }
    this.data.groups.forEach((_, gi) => {
      const y = FLAG_ROW + gi * ROW_H;
      for (let b = 0; b < buckets; b++) {
        const c = this.data.count[gi]![b]!;
        if (!c) continue;
        const x0 = this.x(fromUs + b * bucketUs);
        const x1 = Math.max(x0 + 1, this.x(fromUs + (b + 1) * bucketUs));
        const tone = this.data.tone[gi]![b]!;
        ctx.globalAlpha = 0.25 + 0.75 * (Math.log1p(c) / Math.log1p(max));
        ctx.fillStyle = tone === 2 ? ERROR_COLOR : tone === 1 ? WARN_COLOR : DENSITY;
        ctx.fillRect(x0, y + 1, x1 - x0, ROW_H - 2);
      }
    });
    ctx.globalAlpha = 1;
    this.placeFlags();
  }

  private placeFlags(): void {
    this.flags.replaceChildren(
      ...this.groups.map((g) => {
        const ts = g.lead.placed[0]?.tsUs ?? g.lead.tsUs!;
        // A hypothesis's violations (hypothesis-box.ts violationFlags) ride with the findings.
        const what = g.rule === "hypothesis" ? "hypothesis violation" : "finding";
        return h("button", {
          class: `overview-flag sev-${g.severity}`,
          "data-finding": g.lead.id,
          title: `${g.lead.id}${g.count > 1 ? ` ×${g.count}` : ""} · ${g.rule} · ${g.lead.title}`,
          "aria-label": `${what} ${g.lead.id}: ${g.rule}`,
          tabindex: -1,
          style: `transform:translate(${Math.round(this.x(ts)) - 4}px,0)`,
          onclick: () => this.cb.onFlag(g.lead.id),
        });
      }),
    );
  }

  private placeBrush(): void {
    if (!this.window || !this.brushReady) return;
    const x0 = Math.max(0, this.x(this.window[0]));
    const x1 = Math.min(this.width, this.x(this.window[1]));
    this.moving = true;
    select(this.brushG).call(this.brush.move, [x0, x1]);
    this.moving = false;
    // A window over (nearly) everything cannot be dragged: a drag anywhere draws a new one.
    this.svg.classList.toggle("whole", x1 - x0 > this.width * 0.9);
  }

  private brushed(ev: D3BrushEvent<unknown>): void {
    if (this.moving || !ev.sourceEvent || !ev.selection) return;
    const [x0, x1] = ev.selection as [number, number];
    if (x1 - x0 < 2) return;
    this.cb.onBrush(this.t(x0), this.t(x1));
  }
}
