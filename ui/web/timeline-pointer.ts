// The pointer on the timeline: wheel zoom (d3-zoom) and horizontal wheel
// pan, dragging the time cursor, the tooltip, and clicks: an event selects
// it, a span selects the event that defines it, a counter track's sample
// selects its event, a bucket zooms in on itself.

import { select } from "d3";
import { TimeQuality } from "../../domain/event.js";
import { formatClock, formatCount, formatOffset, formatUtc } from "./format.js";
import { hitTest, type Hit } from "./hit.js";
import { formatValue, hitSample, type SampleHit } from "./counter-tracks.js";
import type { Timeline } from "./timeline.js";

export class TimelinePointer {
  private draggingCursor = false;

  constructor(private readonly t: Timeline) {}

  private nearCursor(clientX: number): boolean {
    if (this.t.cursorTsUs === null) return false;
    const box = this.t.canvas.getBoundingClientRect();
    const { d0, scale } = this.t.view;
    return Math.abs(clientX - box.left - (this.t.timeMap.toD(this.t.cursorTsUs) - d0) * scale) <= 5;
  }

  zoomFilter(ev: Event): boolean {
    if (ev.type === "wheel") {
      const w = ev as WheelEvent;
      return !w.shiftKey && Math.abs(w.deltaY) >= Math.abs(w.deltaX);
    }
    const m = ev as MouseEvent;
    if (ev.type === "mousedown" && this.nearCursor(m.clientX)) return false;
    return !m.button && !m.ctrlKey;
  }

  private timeAt(clientX: number): number {
    const { d0, scale, toT } = this.t.view;
    return toT(d0 + (clientX - this.t.canvas.getBoundingClientRect().left) / scale);
  }

  bind(): void {
    const canvas = this.t.canvas;
    canvas.addEventListener("wheel", (ev) => {
      if (ev.shiftKey) {
        this.t.tracks.scrollTop += ev.deltaY || ev.deltaX;
        ev.preventDefault();
      } else if (Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) {
        this.t.panBy(ev.deltaX / this.t.width);
        ev.preventDefault();
      }
    });
    canvas.addEventListener("pointerdown", (ev) => {
      if (ev.button !== 0 || !this.nearCursor(ev.clientX)) return;
      this.draggingCursor = true;
      canvas.setPointerCapture(ev.pointerId);
    });
    canvas.addEventListener("pointermove", (ev) => {
      if (this.draggingCursor) {
        this.t.setCursor(this.timeAt(ev.clientX));
        return;
      }
      canvas.style.cursor = this.nearCursor(ev.clientX) ? "ew-resize" : "";
      this.showTooltip(ev);
    });
    canvas.addEventListener("pointerup", (ev) => {
      if (!this.draggingCursor) return;
      this.draggingCursor = false;
      canvas.releasePointerCapture(ev.pointerId);
      this.t.cb.onCursor(this.timeAt(ev.clientX));
    });
    canvas.addEventListener("pointerleave", () => {
      this.t.tooltip.hidden = true;
    });
    canvas.addEventListener("click", (ev) => this.onClick(ev));
    select(this.t.axisSvg).on("click", (ev: MouseEvent) => this.t.cb.onCursor(this.timeAt(ev.clientX)));
  }

  /** The span, event, counter sample or bucket under the pointer. */
  private hit(ev: MouseEvent): Hit | { sample: SampleHit } | null {
    const marks = this.t.marks;
    const box = this.t.canvas.getBoundingClientRect();
    const y = ev.clientY - box.top + this.t.tracks.scrollTop;
    const r = this.t.rows.findIndex((row) => y >= row.y && y < row.y + row.h);
    if (r < 0) return null;
    const row = this.t.rows[r]!;
    if (row.tracks.length) {
      const sample = hitSample(row, y - row.y, ev.clientX - box.left, { ...this.t.view, map: this.t.timeMap }, this.t.counterPoints);
      return sample && { sample };
    }
    if (!marks) return null;
    return hitTest(marks, row, r, ev.clientX - box.left, row.y + row.h - y, this.t.view, new Set(this.t.witness.map((w) => w.seq)));
  }

  private onClick(ev: MouseEvent): void {
    const hit = this.hit(ev);
    if (!hit) return;
    if ("sample" in hit || "seq" in hit) {
      this.t.cb.onSelect("sample" in hit ? hit.sample.seq : hit.seq);
      return;
    }
    const [from, to] = this.t.window;
    const span = (to - from) / 10;
    this.t.setWindow(hit.bucketTs - span / 2, hit.bucketTs + span / 2);
  }

  private showTooltip(ev: MouseEvent): void {
    const hit = this.hit(ev);
    const tip = this.t.tooltip;
    if (!hit) {
      tip.hidden = true;
      return;
    }
    const lanes = this.t.lanes;
    tip.textContent =
      "sample" in hit
        ? sampleText(hit.sample, lanes.counterTracks[hit.sample.track])
        : "span" in hit
        ? `${hit.text} — click for its line`
        : "count" in hit
          ? `${formatCount(hit.count)} events — click to zoom in`
          : `${lanes.kinds[hit.kind] ?? "?"} · seq ${hit.seq} · ${timeOf(hit, lanes.datedFromUs ?? lanes.firstTsUs ?? 0)}`;
    tip.hidden = false;
    const box = this.t.canvas.getBoundingClientRect();
    tip.style.transform = `translate(${Math.min(this.t.width - 260, ev.clientX - box.left + 12)}px, ${ev.clientY - box.top + 14}px)`;
  }
}

function sampleText(s: SampleHit, track: { series: string; rate: boolean } | undefined): string {
  const what = track?.rate ? "rate" : "value";
  return `${track?.series ?? "?"} ${what} ${formatValue(s.value, track?.rate ?? false)} at ${formatUtc(s.tsUs)} UTC — click for its line`;
}

/** A mark's time as the hover gives it; an outlined mark says why its time is not its own. */
function timeOf(hit: { tsUs: number; time: number }, originUs: number): string {
  if (hit.time === TimeQuality.unknown) return "time unknown (its file has no dated line; drawn at its place in the order)";
  const at = `${formatClock(hit.tsUs, 1)} UTC (${formatOffset(hit.tsUs - originUs, 1)})`;
  return hit.time === TimeQuality.inferred ? `${at}, inferred: its line has no time of its own` : at;
}
