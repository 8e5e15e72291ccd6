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

/** What a label does: open or close its row; pin or unpin its rank (P, or Shift+click). */
export interface LabelActions {
  toggle(key: string): void;
  pin(key: string): void;
}

export function renderLabels(container: HTMLElement, rows: Row[], lanes: Lane[], tracks: CounterTrack[], act: LabelActions): void {
  const eventsOfRow = (row: Row) => row.lanes.reduce((n, id) => n + (lanes[id]?.events ?? 0), 0);
  container.replaceChildren(
    ...rows.map((row) => {
      const expandable = row.depth < 2;
      const count = formatCount(eventsOfRow(row));
      const el = h(
        "div",
        {
          class: `label depth-${row.depth}${row.open ? " open" : ""}${row.tracks.length ? " with-tracks" : ""}${row.pinned ? " pinned" : ""}`,
          "data-key": row.key,
          style: `top:${row.y}px;height:${row.h}px`,
          title: `${row.label} — ${count} events${row.depth === 1 ? (row.pinned ? " (pinned: P or Shift+click unpins)" : " (P or Shift+click pins it to the top)") : ""}`,
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
        const pinnable = row.depth === 1;
        el.addEventListener("click", (ev) => (pinnable && ev.shiftKey ? act.pin(row.key) : act.toggle(row.key)));
        el.addEventListener("keydown", (ev) => {
          if (pinnable && (ev.key === "p" || ev.key === "P")) {
            ev.preventDefault();
            ev.stopPropagation();
            act.pin(row.key);
            return;
          }
          if (ev.key !== "Enter" && ev.key !== " ") return;
          ev.preventDefault();
          act.toggle(row.key);
        });
      }
      return el;
    }),
  );
}
