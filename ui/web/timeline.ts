// The timeline: lane labels, a canvas with d3-zoom pan/zoom over time, a time
// axis, finding flags and the draggable time cursor. It draws what the
// WindowLoader holds and asks for a new window as the view moves. The zoom
// works in display time (ui/view/timemap.ts), so folded gaps stay folded
// while zooming; everything said to the outside is real time.

import { scaleLinear, select, zoom as d3zoom, zoomIdentity, type ZoomBehavior, type ZoomTransform } from "d3";
import { TimeMap } from "../view/timemap.js";
import { timelineExtent } from "../view/extent.js";
import { fitWindow } from "../view/window.js";
import { renderAxis } from "./axis.js";
import { h } from "./dom.js";
import { drawFrame } from "./draw.js";
import { FlagLayer } from "./flags.js";
import { formatDuration } from "./format.js";
import { renderLabels } from "./labels.js";
import { WindowLoader, type WindowFilter } from "./loader.js";
import { buildMarks, type Marks, type Palette } from "./marks.js";
import { CounterLoader } from "./counter-loader.js";
import { pointsByTrack } from "./counter-tracks.js";
import { indexRows, keysToReveal, layoutRows, type Row, type RowIndex } from "./rows.js";
import { TimelinePointer } from "./timeline-pointer.js";
import type { FindingGroup } from "../view/findingGroups.js";
import type { CounterPoints, Lane, LanesAnswer, PlacedWitness, RoomFlow, WindowColumns } from "./types.js";

export const LABEL_WIDTH = 190;
const MIN_WINDOW_US = 10;

export interface TimelineCallbacks {
  onView(fromUs: number, toUs: number): void;
  onSelect(seq: number): void;
  onCursor(tsUs: number): void;
  onFlag(findingId: string): void;
  onToggle(toggled: string[]): void;
  /** The pinned ranks changed (their keys, in pin order). */
  onPins(pinned: string[]): void;
  onError(message: string): void;
}

export class Timeline {
  readonly element: HTMLElement;
  readonly canvas: HTMLCanvasElement;
  readonly tooltip: HTMLElement;
  readonly axisSvg: SVGSVGElement;
  readonly loader: WindowLoader;
  private readonly counters: CounterLoader;
  /** The counter points held, by track id. */
  counterPoints = new Map<number, CounterPoints>();
  /** Per lane, its counter track ids. */
  private readonly tracksOfLane: number[][];
  private readonly ctx: CanvasRenderingContext2D;
  readonly tracks: HTMLElement;
  private readonly content: HTMLElement;
  private readonly labelsEl: HTMLElement;
  private readonly flags: FlagLayer;
  private readonly spanLabel: HTMLElement;
  private readonly zoom: ZoomBehavior<HTMLCanvasElement, unknown>;
  readonly startUs: number;
  readonly endUs: number;

  width = 600;
  private height = 300;
  private transform: ZoomTransform = zoomIdentity;
  private map = TimeMap.identity;
  private toggled = new Set<string>();
  /** Rank keys pinned to the top, in pin order (rows.ts). */
  private pinned: string[] = [];
  private shown: (lane: Lane) => boolean = () => true;
  rows: Row[] = [];
  rowIndex: RowIndex = { rowsOfLane: [], deepestRowOfLane: new Int32Array(0), height: 0 };
  marks: Marks | null = null;
  witness: PlacedWitness[] = [];
  private selected: { seq: number; tsUs: number; lane: number } | null = null;
  private flow: RoomFlow | null = null;
  cursorTsUs: number | null = null;
  private labelsOn = true;
  private frameRequested = false;
  private firstRenderMarked = false;

  constructor(
    incident: string,
    readonly lanes: LanesAnswer,
    private readonly palette: Palette,
    readonly cb: TimelineCallbacks,
    /** The empty stretches the timeline can fold. */
    foldable: readonly (readonly [number, number])[] = [],
  ) {
    const first = lanes.firstTsUs ?? 0;
    [this.startUs, this.endUs] = timelineExtent(first, lanes.lastTsUs ?? first, foldable);

    this.canvas = h("canvas", {
      class: "lanes-canvas",
      tabindex: 0,
      role: "img",
      "aria-label": `Timeline of ${lanes.events} events. W and S zoom, A and D pan, [ and ] step through events; press ? for every key.`,
    });
    this.ctx = this.canvas.getContext("2d", { alpha: false })!;
    this.flags = new FlagLayer((id) => cb.onFlag(id));
    this.tooltip = h("div", { class: "tooltip", hidden: true });
    this.labelsEl = h("div", { class: "labels", role: "tree", "aria-label": "lanes" });
    this.content = h("div", { class: "tracks-content" }, this.labelsEl, h("div", { class: "view" }, this.canvas, this.flags.element, this.tooltip));
    this.tracks = h("div", { class: "tracks" }, this.content);
    this.axisSvg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    this.axisSvg.classList.add("axis");
    this.spanLabel = h("span", { class: "window-span" });
    this.element = h(
      "div",
      { class: "timeline", "data-loading": "true" },
      h("div", { class: "axis-row" }, h("div", { class: "axis-gutter" }, this.spanLabel), this.axisSvg),
      this.tracks,
    );

    this.loader = new WindowLoader(incident, (data) => this.onData(data), (m) => cb.onError(m));
    this.tracksOfLane = lanes.lanes.map(() => []);
    lanes.counterTracks.forEach((t, id) => this.tracksOfLane[t.lane]?.push(id));
    this.counters = new CounterLoader(
      incident,
      (data) => {
        this.counterPoints = pointsByTrack(data);
        this.requestFrame();
      },
      (m) => cb.onError(m),
    );
    const pointer = new TimelinePointer(this);
    this.zoom = d3zoom<HTMLCanvasElement, unknown>()
      .filter((ev: Event) => pointer.zoomFilter(ev))
      .on("zoom", (ev: { transform: ZoomTransform }) => {
        this.transform = ev.transform;
        this.viewChanged();
      });
    select(this.canvas).call(this.zoom).on("dblclick.zoom", null);
    pointer.bind();
    this.tracks.addEventListener("scroll", () => this.requestFrame());
    new ResizeObserver(() => this.resize()).observe(this.tracks);
    this.relayout();
  }

  /** The visible span, in real time. */
  get window(): [number, number] {
    const x = this.xScale();
    return [this.map.toT(x.invert(0)), this.map.toT(x.invert(this.width))];
  }

  get toggledKeys(): string[] {
    return [...this.toggled];
  }

  get timeMap(): TimeMap {
    return this.map;
  }

  /** Screen x of a display time, and back. */
  get view(): { d0: number; scale: number; toT: (d: number) => number } {
    const x = this.xScale();
    const [d0, d1] = x.domain() as [number, number];
    return { d0, scale: this.width / (d1 - d0), toT: (d) => this.map.toT(d) };
  }

  setWindow(fromUs: number, toUs: number): void {
    const [d0, d1] = fitWindow(this.map.toD(fromUs), this.map.toD(toUs), this.map.toD(this.startUs), this.map.toD(this.endUs), MIN_WINDOW_US);
    const k = (this.map.toD(this.endUs) - this.map.toD(this.startUs)) / (d1 - d0);
    const t = zoomIdentity.scale(k).translate(-this.baseScale()(d0), 0);
    select(this.canvas).call(this.zoom.transform, t);
  }

  /** Zooms by `factor` (>1 in) about a point `at` (0..1 across the view). */
  zoomBy(factor: number, at = 0.5): void {
    select(this.canvas).call(this.zoom.scaleBy, factor, [at * this.width, 0]);
  }

  /** Pans by a share of the visible width (negative: back in time). */
  panBy(share: number): void {
    select(this.canvas).call(this.zoom.translateBy, (-share * this.width) / this.transform.k, 0);
  }

  /** Folds the empty stretches given (or none), keeping the same real window in view. */
  setFolds(gaps: readonly (readonly [number, number])[], foldUs: number): void {
    const [from, to] = this.window;
    this.map = gaps.length ? new TimeMap(gaps, foldUs) : TimeMap.identity;
    this.applyExtent();
    this.rebuildMarks();
    this.setWindow(from, to);
  }

  setToggled(keys: Iterable<string>): void {
    this.toggled = new Set(keys);
    this.relayout();
  }

  /** Shows only the lanes that pass the lane filters. */
  setLaneFilter(shown: (lane: Lane) => boolean): void {
    this.shown = shown;
    this.relayout();
  }

  setKindFilter(filter: WindowFilter): void {
    this.loader.setFilter(filter);
    this.element.dataset["loading"] = "true";
  }

  setLabels(on: boolean): void {
    this.labelsOn = on;
    this.requestFrame();
  }

  /** Opens the groups and ranks needed to show each lane on its own row. */
  reveal(laneIds: number[]): void {
    const keys = keysToReveal(laneIds.map((id) => this.lanes.lanes[id]!).filter(Boolean), this.toggled);
    if (!keys.length) return;
    for (const k of keys) this.toggled.add(k);
    this.relayout();
    this.cb.onToggle(this.toggledKeys);
  }

  setFindings(groups: FindingGroup[]): void {
    this.flags.set(groups);
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

  /**
   * Scrolls so that the rows of all these lanes are in view when they fit,
   * else so that the row of `prefer` is.
   */
  scrollToLanes(lanes: number[], prefer: number): void {
    const rows = lanes.map((l) => this.rows[this.rowIndex.deepestRowOfLane[l] ?? -1]).filter((r): r is Row => r !== undefined);
    if (!rows.length) return;
    const top = Math.min(...rows.map((r) => r.y));
    const bottom = Math.max(...rows.map((r) => r.y + r.h));
    if (bottom - top > this.height) return this.scrollToLane(prefer);
    const now = this.tracks.scrollTop;
    if (top >= now && bottom <= now + this.height) return;
    this.tracks.scrollTop = Math.max(0, Math.min(top - 4, bottom - this.height + 4));
  }

  /** Focuses the label of a lane's row (after opening it). */
  focusLane(lane: number): void {
    this.reveal([lane]);
    this.scrollToLane(lane);
    const row = this.rows[this.rowIndex.deepestRowOfLane[lane] ?? -1];
    if (row) this.labelsEl.querySelector<HTMLElement>(`[data-key="${CSS.escape(row.key)}"]`)?.focus();
  }

  /** Pins a rank to the top (or unpins it), keeping the label focused. */
  togglePin(key: string): void {
    this.pinned = this.pinned.includes(key) ? this.pinned.filter((k) => k !== key) : [...this.pinned, key];
    this.relayout();
    this.cb.onPins(this.pinned);
  }

  setPinned(keys: readonly string[]): void {
    this.pinned = [...keys];
    this.relayout();
  }

  toggleRow(key: string): void {
    if (this.toggled.has(key)) this.toggled.delete(key);
    else this.toggled.add(key);
    this.relayout();
    this.cb.onToggle(this.toggledKeys);
  }

  // ---- layout and data ----

  private baseScale() {
    return scaleLinear().domain([this.map.toD(this.startUs), this.map.toD(this.endUs)]).range([0, this.width]);
  }

  xScale() {
    return this.transform.rescaleX(this.baseScale());
  }

  private applyExtent(): void {
    const span = this.map.toD(this.endUs) - this.map.toD(this.startUs);
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
    this.applyExtent();
    if (hadSize && to > from) this.setWindow(from, to);
    else this.viewChanged();
  }

  private relayout(): void {
    const focused = (document.activeElement as HTMLElement | null)?.dataset?.["key"];
    this.rows = layoutRows(this.lanes.lanes, this.toggled, this.shown, this.tracksOfLane, this.pinned);
    this.rowIndex = indexRows(this.rows, this.lanes.lanes.length);
    this.content.style.height = `${this.rowIndex.height}px`;
    renderLabels(this.labelsEl, this.rows, this.lanes.lanes, this.lanes.counterTracks, { toggle: (key) => this.toggleRow(key), pin: (key) => this.togglePin(key) });
    if (focused) this.labelsEl.querySelector<HTMLElement>(`[data-key="${CSS.escape(focused)}"]`)?.focus();
    this.rebuildMarks();
    this.wantCounters();
  }

  private rebuildMarks(): void {
    if (this.loader.current) this.marks = buildMarks(this.loader.current, { palette: this.palette, rows: this.rows, index: this.rowIndex, map: this.map });
    this.requestFrame();
  }

  private onData(data: WindowColumns): void {
    this.marks = buildMarks(data, { palette: this.palette, rows: this.rows, index: this.rowIndex, map: this.map });
    this.element.dataset["mode"] = data.mode;
    this.requestFrame();
  }

  private viewChanged(): void {
    // Until the next frame draws this view (and says whether its data is in), the window shown is the old one.
    this.element.dataset["loading"] = "true";
    const [from, to] = this.window;
    const { scale } = this.view;
    this.loader.want({ fromUs: from, toUs: to, usPerPx: 1 / scale, minUs: this.startUs, maxUs: this.endUs });
    this.wantCounters();
    this.cb.onView(from, to);
    this.requestFrame();
  }

  /** The counter points of the tracks on the rows now laid out, for the view. */
  private wantCounters(): void {
    const [from, to] = this.window;
    if (!(to > from)) return;
    const lanes = this.rows.filter((r) => r.tracks.length).map((r) => r.lanes[0]!);
    this.counters.want({ fromUs: from, toUs: to, usPerPx: 1 / this.view.scale, minUs: this.startUs, maxUs: this.endUs, lanes });
  }

  // ---- drawing ----

  requestFrame(): void {
    if (this.frameRequested) return;
    this.frameRequested = true;
    requestAnimationFrame(() => {
      this.frameRequested = false;
      this.draw();
    });
  }

  private draw(): void {
    const { d0, scale } = this.view;
    const d1 = d0 + this.width / scale;
    const tracksDrawn = drawFrame(this.ctx, {
      width: this.width,
      height: this.height,
      scrollTop: this.tracks.scrollTop,
      d0,
      scale,
      map: this.map,
      rows: this.rows,
      index: this.rowIndex,
      marks: this.marks,
      palette: this.palette,
      labels: this.labelsOn,
      witness: this.witness,
      selected: this.selected,
      flow: this.flow,
      cursorTsUs: this.cursorTsUs,
      counterPoints: this.counterPoints,
      counterTracks: this.lanes.counterTracks,
    });
    this.element.dataset["tracks"] = String(tracksDrawn);
    this.flags.place({ rows: this.rows, index: this.rowIndex, scrollTop: this.tracks.scrollTop, xOf: (t) => (this.map.toD(t) - d0) * scale, width: this.width, height: this.height });
    renderAxis(this.axisSvg, { d0, d1, map: this.map, originUs: this.lanes.datedFromUs ?? this.lanes.firstTsUs ?? 0, width: this.width, unknownUs: this.lanes.unknownTsUs });
    const [from, to] = this.window;
    this.spanLabel.textContent = `window ${formatDuration(to - from)}`;
    this.element.dataset["from"] = String(Math.floor(from));
    this.element.dataset["to"] = String(Math.ceil(to));
    this.element.dataset["loading"] = String(!this.loader.settled || !this.counters.settled);
    if (this.loader.current && !this.firstRenderMarked) {
      this.firstRenderMarked = true;
      performance.mark("kvrewind:first-render");
    }
  }
}
