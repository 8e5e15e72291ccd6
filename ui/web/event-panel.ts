// The selected event: its fields, where it came from, its raw log line (as
// text), what span it defines (an orphaned stage slice says why it is one),
// and links to the previous/next event of the same room, rank and page.

import { append, h, clear } from "./dom.js";
import { formatUtc, kvPollName } from "./format.js";
import { formatCount } from "./format.js";
import { SPAN_TYPES } from "../view/spanTypes.js";
import type { EventAnswer, TextSlice } from "./types.js";
import type { StepScope } from "./url.js";

export interface EventPanelCallbacks {
  onStep(dir: "next" | "prev", by: StepScope): void;
  /** The next slice of a long record's text. */
  moreText(seq: number, from: number, length: number): Promise<TextSlice>;
}

/** Characters fetched by one "show more". */
const MORE_CHARS = 256 * 1024;

export class EventPanel {
  readonly element: HTMLElement;

  constructor(private readonly cb: EventPanelCallbacks) {
    this.element = h("section", { class: "event-panel panel" });
    this.show(null);
  }

  show(answer: EventAnswer | null, message?: string): void {
    clear(this.element);
    this.element.append(h("header", {}, h("h3", {}, "Event")));
    if (!answer) {
      this.element.append(h("p", { class: "empty" }, message ?? "Click an event on the timeline, or a witness line."));
      return;
    }
    const ev = answer.event;
    this.element.dataset["seq"] = String(ev.seq);
    const rank = [ev.dp !== null ? `DP${ev.dp}` : "", ev.pp !== null ? `PP${ev.pp}` : "", ev.tp !== null ? `TP${ev.tp}` : ""].filter(Boolean).join(" ");
    const fields: [string, string | null][] = [
      ["seq", String(ev.seq)],
      ["time", ev.timeless ? "unknown: no line of its file is dated" : `${formatUtc(ev.tsUs)} UTC${ev.tsInferred ? " (inferred: the line has no time of its own)" : ""}`],
      ["kind", ev.kind],
      ["host / role", `${ev.host ?? "?"} / ${ev.role ?? "?"}`],
      ["rank", rank || null],
      ["room", ev.room],
      ["rid", ev.rid],
      ["chunk", ev.chunk === null ? null : String(ev.chunk)],
      ["layer", ev.layer === null ? null : String(ev.layer)],
      ["pages", ev.pageLo === null ? null : `[${ev.pageLo}, ${ev.pageHi})`],
      ["KVPoll", ev.state === null ? null : `${ev.state} ${kvPollName(ev.state)}`],
      ["span", answer.spanTypes.map((t) => SPAN_TYPES[t]?.name ?? "?").join(", ") || null],
      ["source", answer.source ? `${answer.source.path}:${ev.line} (${answer.source.format})` : `line ${ev.line}`],
    ];
    const nav = (label: string, by: StepScope, enabled: boolean) =>
      h(
        "span",
        { class: "nav" },
        h("button", { class: "step", "data-by": by, "data-dir": "prev", disabled: !enabled, onclick: () => this.cb.onStep("prev", by), title: `previous event of the same ${label}` }, "◀"),
        h("span", { class: "nav-label" }, label),
        h("button", { class: "step", "data-by": by, "data-dir": "next", disabled: !enabled, onclick: () => this.cb.onStep("next", by), title: `next event of the same ${label}` }, "▶"),
      );
    const cut = Object.entries(answer.attrsCut ?? {});
    const attrs = ev.attrs && Object.keys(ev.attrs).length ? h("pre", { class: "attrs" }, JSON.stringify(ev.attrs, null, 1)) : null;
    const notes = answer.spanTypes.flatMap((t) => SPAN_TYPES[t]?.note ?? []).map((note) => h("p", { class: "span-note" }, note));
    const attrsNote = cut.length ? h("p", { class: "cut-note" }, `Cut: ${cut.map(([k, n]) => `${k} (${formatCount(n)} more characters)`).join(", ")}`) : null;
    append(this.element, [
      h(
        "div",
        { class: "event-nav" },
        nav("room", "room", ev.room !== null),
        nav("rank", "rank", ev.host !== null || ev.tp !== null),
        nav("page", "page", ev.pageLo !== null),
      ),
      h(
        "table",
        { class: "fields" },
        ...fields.filter(([, v]) => v !== null).map(([k, v]) => h("tr", {}, h("th", {}, k), h("td", {}, v))),
      ),
      ...notes,
      attrs,
      attrsNote,
      h("div", { class: "raw-title" }, "Raw record"),
      this.rawText(ev.seq, ev.text, answer.textLength ?? ev.text.length),
    ]);
  }

  /** The record's text; a long one as its start, with a button that fetches the next slice. */
  private rawText(seq: number, start: string, length: number): HTMLElement {
    const pre = h("pre", { class: "raw" }, start);
    if (length <= start.length) return pre;
    let shown = start.length;
    const note = h("span", { class: "cut-note" });
    const more = h("button", { class: "more-text" }, "Show more");
    const update = () => {
      note.textContent = `Showing ${formatCount(shown)} of ${formatCount(length)} characters. `;
      more.textContent = `Show ${formatCount(Math.min(MORE_CHARS, length - shown))} more`;
      more.hidden = shown >= length;
    };
    more.addEventListener("click", () => {
      more.disabled = true;
      void this.cb
        .moreText(seq, shown, MORE_CHARS)
        .then((slice) => {
          pre.append(slice.text);
          shown += slice.text.length;
          update();
        })
        .finally(() => (more.disabled = false));
    });
    update();
    return h("div", { class: "raw-wrap", "data-length": length }, pre, h("div", { class: "raw-more" }, note, more));
  }
}
