// Finding flags over the lanes: a button per finding with a placed witness,
// standing beside its first witness event on the row that shows it.

import { h, clear } from "./dom.js";
import type { Row, RowIndex } from "./rows.js";
import type { Finding } from "./types.js";

export interface FlagView {
  rows: Row[];
  index: RowIndex;
  scrollTop: number;
  /** Screen x = (tsUs - d0) * scale. */
  d0: number;
  scale: number;
  width: number;
  height: number;
}

export class FlagLayer {
  readonly element = h("div", { class: "flags" });
  private flags: { finding: Finding; el: HTMLButtonElement }[] = [];

  constructor(private readonly onFlag: (findingId: string) => void) {}

  set(findings: Finding[]): void {
    clear(this.element);
    this.flags = findings
      .filter((f) => f.placed.length > 0)
      .map((finding) => {
        const el = h(
          "button",
          {
            class: `flag sev-${finding.severity}`,
            "data-finding": finding.id,
            title: `${finding.id} · ${finding.rule} · ${finding.title}`,
            onclick: () => this.onFlag(finding.id),
          },
          finding.id,
        );
        this.element.appendChild(el);
        return { finding, el };
      });
  }

  activate(findingId: string | null): void {
    for (const { finding, el } of this.flags) el.classList.toggle("active", finding.id === findingId);
  }

  place(v: FlagView): void {
    for (const { finding, el } of this.flags) {
      const w = finding.placed[0]!;
      const row = v.rows[v.index.deepestRowOfLane[w.lane] ?? -1];
      const x = (w.tsUs - v.d0) * v.scale;
      const y = row ? row.y - v.scrollTop : -100;
      const visible = row !== undefined && x >= -2 && x <= v.width + 2 && y >= -row.h && y <= v.height;
      el.hidden = !visible;
      // Beside the witness mark rather than over it.
      if (visible) el.style.transform = `translate(${Math.round(x) + 6}px, ${Math.round(y)}px)`;
    }
  }
}
