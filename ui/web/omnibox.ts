// The omnibox: type a room (or the start of one), a request id, a rank or
// host, an event kind, or any text, and jump to it. Lanes and kinds are
// matched here; rooms, request ids and kinds' first events come from the
// server's search, and the raw text of every record is searched when asked
// (the last entry, or Enter twice), since that reads every stored line.

import { api } from "./api.js";
import { h } from "./dom.js";
import { formatCount } from "./format.js";
import type { LanesAnswer, SearchAnswer } from "./types.js";

export interface OmniboxCallbacks {
  onRoom(room: string, firstSeq: number): void;
  onSeq(seq: number): void;
  onLane(lane: number): void;
}

interface Option {
  section: string;
  text: string;
  detail: string;
  pick(): void;
}

const DEBOUNCE_MS = 180;
const MAX_LANES = 6;

export class Omnibox {
  readonly element: HTMLElement;
  readonly input: HTMLInputElement;
  private readonly list: HTMLElement;
  private options: Option[] = [];
  private active = -1;
  private timer: number | undefined;
  private request: AbortController | null = null;

  constructor(
    private readonly incident: string,
    private readonly lanes: LanesAnswer,
    private readonly cb: OmniboxCallbacks,
  ) {
    this.input = h("input", {
      type: "search",
      class: "omnibox-input",
      placeholder: "Find a room, rid, rank, kind or text…  (/)",
      role: "combobox",
      "aria-expanded": "false",
      "aria-controls": "omnibox-list",
      "aria-autocomplete": "list",
      "aria-label": "find a room, request id, rank, event kind or text",
    });
    this.list = h("ul", { class: "omnibox-list", id: "omnibox-list", role: "listbox", hidden: true });
    this.element = h("div", { class: "omnibox" }, this.input, this.list);
    this.input.addEventListener("input", () => {
      window.clearTimeout(this.timer);
      this.timer = window.setTimeout(() => void this.search(false), DEBOUNCE_MS);
    });
    this.input.addEventListener("keydown", (ev) => this.onKey(ev));
    this.input.addEventListener("blur", () => window.setTimeout(() => this.close(), 150));
  }

  focus(): void {
    this.input.focus();
    this.input.select();
  }

  private onKey(ev: KeyboardEvent): void {
    if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
      ev.preventDefault();
      if (!this.options.length) return;
      this.active = (this.active + (ev.key === "ArrowDown" ? 1 : -1) + this.options.length) % this.options.length;
      this.renderList();
    } else if (ev.key === "Enter") {
      ev.preventDefault();
      const option = this.options[this.active] ?? this.options[0];
      if (option) option.pick();
      else void this.search(false);
    } else if (ev.key === "Escape") {
      this.close();
      this.input.blur();
    }
  }

  private close(): void {
    this.list.hidden = true;
    this.input.setAttribute("aria-expanded", "false");
  }

  private async search(text: boolean): Promise<void> {
    const q = this.input.value.trim();
    this.request?.abort();
    if (!q) {
      this.options = [];
      this.close();
      return;
    }
    const request = new AbortController();
    this.request = request;
    let found: SearchAnswer;
    try {
      found = await api.search(this.incident, q, text, request.signal);
    } catch (err) {
      if (request.signal.aborted) return;
      this.options = [{ section: "", text: (err as Error).message, detail: "", pick: () => undefined }];
      this.renderList();
      return;
    }
    this.options = this.optionsFor(q, found, text);
    this.active = this.options.length ? 0 : -1;
    this.renderList();
  }

  private optionsFor(q: string, found: SearchAnswer, searchedText: boolean): Option[] {
    const done = (f: () => void) => () => {
      this.close();
      f();
    };
    const needle = q.toLowerCase();
    const lanes = this.lanes.lanes
      .filter((l) => `${l.group} ${l.rank} ${l.component}`.toLowerCase().includes(needle))
      .slice(0, MAX_LANES)
      .map((l): Option => ({ section: "Lanes", text: `${l.group} ${l.rank} ${l.component}`, detail: `${formatCount(l.events)} events`, pick: done(() => this.cb.onLane(l.id)) }));
    const options: Option[] = [
      ...found.rooms.map((r): Option => ({ section: "Rooms", text: r.room, detail: `${formatCount(r.events)} events`, pick: done(() => this.cb.onRoom(r.room, r.firstSeq)) })),
      ...found.rids.map((r): Option => ({ section: "Requests", text: r.rid, detail: "first event", pick: done(() => this.cb.onSeq(r.firstSeq)) })),
      ...lanes,
      ...found.kinds.map((k): Option => ({ section: "Kinds", text: k.kind, detail: `${formatCount(k.events)} · first`, pick: done(() => this.cb.onSeq(k.firstSeq)) })),
      ...(found.text?.hits ?? []).map((t): Option => ({ section: "Text", text: t.excerpt, detail: `${t.source}:${t.line}`, pick: done(() => this.cb.onSeq(t.seq)) })),
    ];
    if (!searchedText) options.push({ section: "Text", text: `Search every record's text for “${q}”`, detail: "reads every line", pick: () => void this.search(true) });
    else if (!found.text?.hits.length) options.push({ section: "Text", text: `No record holds “${q}”`, detail: "", pick: () => undefined });
    else if (!found.text.complete) options.push({ section: "Text", text: "More records hold it (the first are listed)", detail: "", pick: () => undefined });
    return options;
  }

  private renderList(): void {
    let section = "";
    const items: HTMLElement[] = [];
    this.options.forEach((o, i) => {
      if (o.section !== section) {
        section = o.section;
        if (section) items.push(h("li", { class: "omnibox-section", role: "presentation" }, section));
      }
      const item = h(
        "li",
        { class: `omnibox-option${i === this.active ? " active" : ""}`, role: "option", id: `omnibox-${i}`, "aria-selected": String(i === this.active), "data-section": o.section },
        h("span", { class: "text" }, o.text),
        h("span", { class: "detail" }, o.detail),
      );
      item.addEventListener("mousedown", (ev) => {
        ev.preventDefault();
        o.pick();
      });
      items.push(item);
    });
    this.list.replaceChildren(...items);
    this.list.hidden = items.length === 0;
    this.input.setAttribute("aria-expanded", String(!this.list.hidden));
    if (this.active >= 0) this.input.setAttribute("aria-activedescendant", `omnibox-${this.active}`);
  }
}
