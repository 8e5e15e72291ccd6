// The timeline: lane labels, a canvas with d3-zoom pan/zoom over time, a time
// axis, finding flags and the draggable time cursor. It draws what the
// WindowLoader holds and asks for a new window as the view moves.

import { scaleLinear, select, zoom as d3zoom, zoomIdentity, type ZoomBehavior, type ZoomTransform } from "d3";
import { renderAxis } from "./axis.js";
import { hitTest, type Hit } from "./hit.js";
import { renderLabels } from "./labels.js";
import { h } from "./dom.js";
import { drawFrame } from "./draw.js";
import { FlagLayer } from "./flags.js";
import { formatCount, formatDuration, formatOffset } from "./format.js";
import { WindowLoader } from "./loader.js";
import { buildMarks, type Marks } from "./marks.js";
import { indexRows, keysToReveal, layoutRows, type Row, type RowIndex } from "./rows.js";
import type { Finding, LanesAnswer, PlacedWitness, RoomFlow, WindowColumns } from "./types.js";

const LABEL_WIDTH = 190;

/**
 * The window to show for a wish: at least `minUs` wide, inside [startUs,
 * endUs] (the zoom cannot show outside it), moved rather than cut when it
 * sticks out, and the whole extent when it is wider than that.
 */
export function fitWindow(fromUs: number, toUs: number, startUs: number, endUs: number, minUs: number): [number, number] {
  const span = Math.max(minUs, toUs - fromUs);
  if (span >= endUs - startUs) return [startUs, endUs];
  if (fromUs < startUs) return [startUs, startUs + span];
  if (fromUs + span > endUs) return [endUs - span, endUs];
  return [fromUs, fromUs + span];
}
const MIN_WINDOW_US = 10;

export interface TimelineCallbacks {
  onView(fromUs: number, toUs: number): void;
  onSelect(seq: number): void;
  onCursor(tsUs: number): void;
  onFlag(findingId: string): void;
  onToggle(toggled: string[]): void;
  onError(message: string): void;
}

export class Timeline {
  readonly element: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly ctx: CanvasRenderingContext2D;
  private readonly tracks: HTMLElement;
  private readonly content: HTMLElement;
  private readonly labels: HTMLElement;
  private readonly flags: FlagLayer;
  private readonly tooltip: HTMLElement;
  private readonly axisSvg: SVGSVGElement;
  private readonly spanLabel: HTMLElement;
  private readonly loader: WindowLoader;
  private readonly zoom: ZoomBehavior<HTMLCanvasElement, unknown>;
  private readonly startUs: number;
  private readonly endUs: number;

  private width = 600;
  private height = 300;
  private transform: ZoomTransform = zoomIdentity;
  private toggled = new Set<string>();
  private rows: Row[] = [];
  private rowIndex: RowIndex = { rowsOfLane: [], deepestRowOfLane: new Int32Array(0), height: 0 };
  private marks: Marks | null = null;
  private witness: PlacedWitness[] = [];
  private selected: { seq: number; tsUs: number; lane: number } | null = null;
  private flow: RoomFlow | null = null;
  private cursorTsUs: number | null = null;
  private draggingCursor = false;
  private frameRequested = false;
  private firstRenderMarked = false;

  constructor(
    incident: string,
    private readonly lanes: LanesAnswer,
    private readonly cb: TimelineCallbacks,
  ) {
    const first = lanes.firstTsUs ?? 0;
    const last = lanes.lastTsUs ?? first;
    const pad = Math.max(1000, (last - first) * 0.01);
    this.startUs = first - pad;
    this.endUs = last + pad;

    this.canvas = h("canvas", { class: "lanes-canvas", "aria-label": "timeline" });
    this.ctx = this.canvas.getContext("2d", { alpha: false })!;
    this.flags = new FlagLayer((id) => cb.onFlag(id));
    this.tooltip = h("div", { class: "tooltip", hidden: true });
    this.labels = h("div", { class: "labels" });
    this.content = h("div", { class: "tracks-content" }, this.labels, h("div", { class: "view" }, this.canvas, this.flags.element, this.tooltip));
    this.tracks = h("div", { class: "tracks" }, this.content);
    this.axisSvg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    this.spanLabel = h("span", { class: "window-span" });
    this.axisSvg.classList.add("axis");
    this.element = h(
      "div",
      { class: "timeline", "data-loading": "true" },
      h("div", { class: "axis-row" }, h("div", { class: "axis-gutter" }, this.spanLabel), this.axisSvg),
      this.tracks,
    );

    this.loader = new WindowLoader(incident, (data) => this.onData(data), (m) => cb.onError(m));
    this.zoom = d3zoom<HTMLCanvasElement, unknown>()
      .filter((ev: Event) => this.zoomFilter(ev))
      .on("zoom", (ev: { transform: ZoomTransform }) => {
        this.transform = ev.transform;
        this.viewChanged();
      });
    select(this.canvas).call(this.zoom).on("dblclick.zoom", null);
    this.bindPointer();
    this.tracks.addEventListener("scroll", () => this.requestFrame());
    new ResizeObserver(() => this.resize()).observe(this.tracks);
    this.relayout();
  }

  /** The visible time span. */
  get window(): [number, number] {
    const x = this.xScale();
    return [x.invert(0), x.invert(this.width)];
  }

  get toggledKeys(): string[] {
    return [...this.toggled];
  }

  setWindow(fromUs: number, toUs: number): void {
    const [from, to] = fitWindow(fromUs, toUs, this.startUs, this.endUs, MIN_WINDOW_US);
    const k = (this.endUs - this.startUs) / (to - from);
    const x0 = this.baseScale();
    const t = zoomIdentity.scale(k).translate(-x0(from), 0);
    select(this.canvas).call(this.zoom.transform, t);
  }

  setToggled(keys: Iterable<string>): void {
    this.toggled = new Set(keys);
    this.relayout();
  }

  /** Opens the groups and ranks needed to show each lane on its own row. */
  reveal(laneIds: number[]): void {
    const keys = keysToReveal(laneIds.map((id) => this.lanes.lanes[id]!).filter(Boolean), this.toggled);
    if (!keys.length) return;
    for (const k of keys) this.toggled.add(k);
    this.relayout();
    this.cb.onToggle(this.toggledKeys);
  }

  setFindings(findings: Finding[]): void {
    this.flags.set(findings);
    this.requestFrame();
  }

  setWitness(placed: PlacedWitness[], findingId: string | null): void {
    this.witness = placed;
    this.flags.activate(findingId);
    this.requestFrame();
  }

  setSelected(sel: { seq: number; tsUs: number; lane: number } | null): void {
    this.selected = sel;
    this.requestFrame();
  }

  setFlow(flow: RoomFlow | null): void {
    this.flow = flow;
    this.requestFrame();
  }

  setCursor(tsUs: number | null): void {
    this.cursorTsUs = tsUs;
    this.requestFrame();
  }

  /** Scrolls vertically so that a lane's row is in view. */
  scrollToLane(lane: number): void {
    const row = this.rows[this.rowIndex.deepestRowOfLane[lane] ?? -1];
    if (!row) return;
    const top = this.tracks.scrollTop;
    if (row.y < top || row.y + row.h > top + this.height) this.tracks.scrollTop = Math.max(0, row.y - this.height / 3);
  }

  // ---- layout and data ----

  private baseScale() {
    return scaleLinear().domain([this.startUs, this.endUs]).range([0, this.width]);
  }

  private xScale() {
    return this.transform.rescaleX(this.baseScale());
  }

  private resize(): void {
    const [from, to] = this.window;
    const hadSize = this.width > 0;
    this.width = Math.max(100, this.tracks.clientWidth - LABEL_WIDTH);
    this.height = Math.max(60, this.tracks.clientHeight);
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(this.width * dpr);
    this.canvas.height = Math.round(this.height * dpr);
    this.canvas.style.width = `${this.width}px`;
    this.canvas.style.height = `${this.height}px`;
    this.ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    this.axisSvg.setAttribute("width", String(this.width));
    const span = this.endUs - this.startUs;
    this.zoom
      .extent([
        [0, 0],
        [this.width, this.height],
      ])
      .translateExtent([
        [0, -Infinity],
        [this.width, Infinity],
      ])
      .scaleExtent([1, Math.max(1, span / MIN_WINDOW_US)]);
    if (hadSize && to > from) this.setWindow(from, to);
    else this.viewChanged();
  }

  private relayout(): void {
    this.rows = layoutRows(this.lanes.lanes, this.toggled);
    this.rowIndex = indexRows(this.rows, this.lanes.lanes.length);
    this.content.style.height = `${this.rowIndex.height}px`;
    renderLabels(this.labels, this.rows, this.lanes.lanes, (key) => {
      if (this.toggled.has(key)) this.toggled.delete(key);
      else this.toggled.add(key);
      this.relayout();
      this.cb.onToggle(this.toggledKeys);
    });
    if (this.loader.current) this.marks = buildMarks(this.loader.current, this.lanes.lanes, this.rows, this.rowIndex);
    this.requestFrame();
  }

  private onData(data: WindowColumns): void {
    this.marks = buildMarks(data, this.lanes.lanes, this.rows, this.rowIndex);
    this.element.dataset["mode"] = data.mode;
    this.requestFrame();
  }

  private viewChanged(): void {
    const [from, to] = this.window;
    this.loader.want({ fromUs: from, toUs: to, widthPx: this.width, minUs: this.startUs, maxUs: this.endUs });
    this.cb.onView(from, to);
    this.requestFrame();
  }

  // ---- drawing ----

  private requestFrame(): void {
    if (this.frameRequested) return;
    this.frameRequested = true;
    requestAnimationFrame(() => {
      this.frameRequested = false;
      this.draw();
    });
  }

  private draw(): void {
    const x = this.xScale();
    const [d0] = x.domain() as [number, number];
    const scale = this.width / (x.domain()[1]! - d0);
    drawFrame(this.ctx, {
      width: this.width,
      height: this.height,
      scrollTop: this.tracks.scrollTop,
      d0,
      scale,
      rows: this.rows,
      index: this.rowIndex,
      marks: this.marks,
      witness: this.witness,
      selected: this.selected,
      flow: this.flow,
      cursorTsUs: this.cursorTsUs,
    });
    this.flags.place({ rows: this.rows, index: this.rowIndex, scrollTop: this.tracks.scrollTop, d0, scale, width: this.width, height: this.height });
    const d1 = x.domain()[1]!;
    renderAxis(this.axisSvg, d0, d1, this.lanes.firstTsUs ?? 0, this.width);
    this.spanLabel.textContent = `window ${formatDuration(d1 - d0)}`;
    this.element.dataset["from"] = String(Math.floor(d0));
    this.element.dataset["to"] = String(Math.ceil(d1));
    this.element.dataset["loading"] = String(!this.loader.settled);
    if (this.loader.current && !this.firstRenderMarked) {
      this.firstRenderMarked = true;
      performance.mark("kvrewind:first-render");
    }
  }

  // ---- pointer ----

  private nearCursor(clientX: number): boolean {
    if (this.cursorTsUs === null) return false;
    const box = this.canvas.getBoundingClientRect();
    return Math.abs(clientX - box.left - this.xScale()(this.cursorTsUs)) <= 5;
  }

  private zoomFilter(ev: Event): boolean {
    if (ev.type === "wheel") {
      const w = ev as WheelEvent;
      return !w.shiftKey && Math.abs(w.deltaY) >= Math.abs(w.deltaX);
    }
    const m = ev as MouseEvent;
    if (ev.type === "mousedown" && this.nearCursor(m.clientX)) return false;
    return !m.button && !m.ctrlKey;
  }

  private bindPointer(): void {
    const canvas = this.canvas;
    canvas.addEventListener("wheel", (ev) => {
      if (ev.shiftKey) {
        this.tracks.scrollTop += ev.deltaY || ev.deltaX;
        ev.preventDefault();
      } else if (Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) {
        select(canvas).call(this.zoom.translateBy, -ev.deltaX / this.transform.k, 0);
        ev.preventDefault();
      }
    });
    canvas.addEventListener("pointerdown", (ev) => {
      if (ev.button !== 0 || !this.nearCursor(ev.clientX)) return;
      this.draggingCursor = true;
      canvas.setPointerCapture(ev.pointerId);
    });
    canvas.addEventListener("pointermove", (ev) => {
      const x = ev.clientX - canvas.getBoundingClientRect().left;
      if (this.draggingCursor) {
        this.setCursor(this.xScale().invert(x));
        return;
      }
      canvas.style.cursor = this.nearCursor(ev.clientX) ? "ew-resize" : "";
      this.showTooltip(ev);
    });
    canvas.addEventListener("pointerup", (ev) => {
      if (!this.draggingCursor) return;
      this.draggingCursor = false;
      canvas.releasePointerCapture(ev.pointerId);
      this.cb.onCursor(this.xScale().invert(ev.clientX - canvas.getBoundingClientRect().left));
    });
    canvas.addEventListener("pointerleave", () => {
      this.tooltip.hidden = true;
    });
    canvas.addEventListener("click", (ev) => this.onClick(ev));
    this.axisSvg.addEventListener("click", (ev) => {
      const x = ev.clientX - this.axisSvg.getBoundingClientRect().left;
      this.cb.onCursor(this.xScale().invert(x));
    });
  }

  private rowAt(clientY: number): number {
    const y = clientY - this.canvas.getBoundingClientRect().top + this.tracks.scrollTop;
    return this.rows.findIndex((r) => y >= r.y && y < r.y + r.h);
  }

  /** The event or bucket under the pointer. */
  private hit(ev: MouseEvent): Hit | null {
    const data = this.loader.current;
    const r = this.rowAt(ev.clientY);
    if (!data || r < 0) return null;
    const x = this.xScale();
    const px = ev.clientX - this.canvas.getBoundingClientRect().left;
    return hitTest(data, this.rows[r]!, px, x, (p) => x.invert(p), new Set(this.witness.map((w) => w.seq)));
  }

  private onClick(ev: MouseEvent): void {
    const hit = this.hit(ev);
    if (!hit) return;
    if ("seq" in hit) {
      this.cb.onSelect(hit.seq);
      return;
    }
    const [from, to] = this.window;
    const span = (to - from) / 10;
    this.setWindow(hit.bucketTs - span / 2, hit.bucketTs + span / 2);
  }

  private showTooltip(ev: MouseEvent): void {
    const hit = this.hit(ev);
    if (!hit) {
      this.tooltip.hidden = true;
      return;
    }
    this.tooltip.textContent =
      "count" in hit
        ? `${formatCount(hit.count)} events — click to zoom in`
        : `${this.lanes.kinds[hit.kind] ?? "?"} · seq ${hit.seq} · ${formatOffset(hit.tsUs - (this.lanes.firstTsUs ?? 0), 1)}`;
    this.tooltip.hidden = false;
    const box = this.canvas.getBoundingClientRect();
    this.tooltip.style.transform = `translate(${Math.min(this.width - 220, ev.clientX - box.left + 12)}px, ${ev.clientY - box.top + 14}px)`;
  }
}
