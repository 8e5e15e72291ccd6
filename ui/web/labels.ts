// The lane labels beside the canvas: one per row, with its event count; group
// and rank rows open and close on click.

import { h } from "./dom.js";
import { formatCount } from "./format.js";
import { COMPONENT_COLORS } from "./marks.js";
import type { Row } from "./rows.js";
import type { Lane } from "./types.js";

export function renderLabels(container: HTMLElement, rows: Row[], lanes: Lane[], onToggle: (key: string) => void): void {
  const eventsOfRow = (row: Row) => row.lanes.reduce((n, id) => n + (lanes[id]?.events ?? 0), 0);
  container.replaceChildren(
    ...rows.map((row) => {
      const expandable = row.depth < 2;
      const count = formatCount(eventsOfRow(row));
      const el = h(
        "div",
        {
          class: `label depth-${row.depth}${row.open ? " open" : ""}`,
          "data-key": row.key,
          style: `top:${row.y}px;height:${row.h}px`,
          title: `${row.label} — ${count} events`,
        },
        expandable
          ? h("span", { class: "caret" }, row.open ? "▾" : "▸")
          : h("span", { class: "swatch", style: `background:${COMPONENT_COLORS[row.component!]}` }),
        h("span", { class: "name" }, row.label),
        h("span", { class: "count" }, count),
      );
      if (expandable) el.addEventListener("click", () => onToggle(row.key));
      return el;
    }),
  );
}
