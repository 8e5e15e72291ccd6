// Finding flags over the lanes: one button per violated finding group (the
// same entries as the findings list), standing beside its lead finding's
// first witness on the row that shows it. Flags that would overlap stack
// downwards instead, and one that cannot be placed is hidden.

import type { FindingGroup } from "../view/findingGroups.js";
import { h, clear } from "./dom.js";
import type { Row, RowIndex } from "./rows.js";

export interface FlagView {
  rows: Row[];
  index: RowIndex;
  scrollTop: number;
  /** Screen x of a real time. */
  xOf(tsUs: number): number;
  width: number;
  height: number;
}

const FLAG_H = 15;

export class FlagLayer {
  readonly element = h("div", { class: "flags" });
  private flags: { group: FindingGroup; el: HTMLButtonElement; width: number }[] = [];

  constructor(private readonly onFlag: (findingId: string) => void) {}

  set(groups: FindingGroup[]): void {
    clear(this.element);
    this.flags = groups
      .filter((g) => g.lead.placed.length > 0)
      .map((group) => {
        const text = group.count > 1 ? `${group.lead.id} ×${group.count}` : group.lead.id;
        const el = h(
          "button",
          {
            class: `flag sev-${group.severity}`,
            "data-finding": group.lead.id,
            title: `${text} · ${group.rule} · ${group.lead.title}`,
            "aria-label": `finding ${text}: ${group.rule}, ${group.severity}`,
            tabindex: -1,
            onclick: () => this.onFlag(group.lead.id),
          },
          text,
        );
        this.element.appendChild(el);
        return { group, el, width: 10 + text.length * 6.2 };
      });
  }

  activate(findingId: string | null): void {
    for (const { group, el } of this.flags) el.classList.toggle("active", group.members.some((m) => m.id === findingId));
  }

  place(v: FlagView): void {
    const taken: { x0: number; x1: number; y: number }[] = [];
    for (const { group, el, width } of this.flags) {
      const w = group.lead.placed[0]!;
      const row = v.rows[v.index.deepestRowOfLane[w.lane] ?? -1];
      const x = Math.round(v.xOf(w.tsUs)) + 6;
      let y = row ? row.y - v.scrollTop : -100;
      // Beside the witness mark rather than over it; below any flag already there.
      while (taken.some((t) => t.y === y && x < t.x1 && x + width > t.x0)) y += FLAG_H;
      const visible = row !== undefined && x >= -2 && x <= v.width + 2 && y >= -row.h && y <= v.height - FLAG_H;
      el.hidden = !visible;
      if (!visible) continue;
      taken.push({ x0: x, x1: x + width, y });
      el.style.transform = `translate(${x}px, ${Math.round(y)}px)`;
    }
  }
}
