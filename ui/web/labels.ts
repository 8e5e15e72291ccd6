// The lane labels beside the canvas: one per row, with its event count, as
// the items of a tree. Group and rank rows open and close (click, Enter or
// Space), so every lane can be reached from the keyboard; lane rows are
// focusable too.
// A row with counter tracks names each track's series beside its band.

import { COMPONENT_COLORS } from "../view/kindColors.js";
import { h } from "./dom.js";
import { formatCount } from "./format.js";
import { TRACK_HEIGHT, type Row } from "./rows.js";
import type { CounterTrack, Lane } from "./types.js";

/** The series of a row's tracks, each at its band (below the lane's own name in the first). */
function trackLabels(row: Row, tracks: CounterTrack[]): HTMLElement[] {
  return row.tracks.map((id, k) => {
    const t = tracks[id];
    const name = t ? `${t.series}${t.rate ? " (rate /s)" : ""}` : "?";
    return h("span", { class: "track-label", "data-track": id, title: name, style: `top:${k * TRACK_HEIGHT + 14}px` }, name);
  });
}

export function renderLabels(container: HTMLElement, rows: Row[], lanes: Lane[], tracks: CounterTrack[], onToggle: (key: string) => void): void {
  const eventsOfRow = (row: Row) => row.lanes.reduce((n, id) => n + (lanes[id]?.events ?? 0), 0);
  container.replaceChildren(
    ...rows.map((row) => {
      const expandable = row.depth < 2;
      const count = formatCount(eventsOfRow(row));
      const el = h(
        "div",
        {
          class: `label depth-${row.depth}${row.open ? " open" : ""}${row.tracks.length ? " with-tracks" : ""}`,
          "data-key": row.key,
          style: `top:${row.y}px;height:${row.h}px`,
          title: `${row.label} — ${count} events`,
          tabindex: 0,
          // Groups, ranks and lanes are one tree; a row's name is its visible text (WCAG 2.5.3), open or closed is aria-expanded.
          role: "treeitem",
          "aria-level": String(row.depth + 1),
          ...(expandable && { "aria-expanded": String(row.open) }),
        },
        expandable
          ? h("span", { class: "caret", "aria-hidden": "true" }, row.open ? "▾" : "▸")
          : h("span", { class: "swatch", style: `background:${COMPONENT_COLORS[row.component!]}` }),
        h("span", { class: "name" }, row.label),
        h("span", { class: "count" }, h("span", { class: "visually-hidden" }, ", "), count, h("span", { class: "visually-hidden" }, " events")),
        ...trackLabels(row, tracks),
      );
      if (expandable) {
        el.addEventListener("click", () => onToggle(row.key));
        el.addEventListener("keydown", (ev) => {
          if (ev.key !== "Enter" && ev.key !== " ") return;
          ev.preventDefault();
          onToggle(row.key);
        });
      }
      return el;
    }),
  );
}
