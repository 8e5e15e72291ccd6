// The side list: ranked suspects first, then the violated findings grouped
// by rule and cause (ui/view/findingGroups.ts) in severity order, each with
// its count, then — folded — the checks that found nothing wrong or could not
// tell. The selected entry opens in place with its explanation, how to
// falsify it, its witness log lines (each a link to the event) and, for a
// group, its rooms (each a link to that room's finding or events).

import { compareIds, type FindingGroup, type GroupedFindings } from "../view/findingGroups.js";
import { h, clear } from "./dom.js";
import { formatClock, formatOffset } from "./format.js";
import type { Finding, Suspect } from "./types.js";

export interface FindingsPanelCallbacks {
  onFinding(id: string): void;
  onWitness(seq: number): void;
  onRoom(room: string): void;
}

/** Rooms listed at once in an open group (the rest behind a button). */
const ROOMS_SHOWN = 60;

export class FindingsPanel {
  readonly element: HTMLElement;
  private selected: string | null = null;
  private otherOpen = false;

  constructor(
    private readonly grouped: GroupedFindings,
    private readonly suspects: Suspect[],
    private readonly originUs: number,
    private readonly cb: FindingsPanelCallbacks,
  ) {
    this.element = h("aside", { class: "findings-panel", "aria-label": "suspects and findings" });
    this.render();
  }

  select(id: string | null): void {
    this.selected = id;
    if (id && this.grouped.other.some((g) => g.members.some((m) => m.id === id))) this.otherOpen = true;
    this.render();
    this.element.querySelector(".finding.selected")?.scrollIntoView({ block: "nearest" });
  }

  private render(): void {
    clear(this.element);
    const { violated, other } = this.grouped;
    const verdicts = new Map<string, number>();
    for (const g of other) verdicts.set(g.verdict, (verdicts.get(g.verdict) ?? 0) + g.members.length);
    const folded = h(
      "details",
      { class: "other-verdicts", ...(this.otherOpen && { open: true }) },
      h("summary", {}, `Not violated`, h("span", { class: "count" }, [...verdicts].map(([v, n]) => `${n} ${v}`).join(" · "))),
      h("ul", { class: "findings other" }, ...other.map((g) => this.groupItem(g))),
    );
    folded.addEventListener("toggle", () => (this.otherOpen = (folded as HTMLDetailsElement).open));
    this.element.append(
      h("h2", {}, "Suspects", h("span", { class: "count" }, String(this.suspects.length))),
      this.suspects.length ? h("ol", { class: "suspects" }, ...this.suspects.map((s) => this.suspectItem(s))) : h("p", { class: "empty" }, "No suspect ranked."),
      h("h2", {}, "Findings", h("span", { class: "count" }, violated.length === 0 ? "0" : `${violated.length} · ${violated.reduce((n, g) => n + g.count, 0)} instances`)),
      violated.length ? h("ul", { class: "findings" }, ...violated.map((g) => this.groupItem(g))) : h("p", { class: "empty" }, "No violation found."),
      ...(other.length ? [folded] : []),
    );
  }

  private suspectItem(s: Suspect): HTMLElement {
    // The head opens the suspect's own first finding; the references read in id order.
    const own = s.body.findings ?? [];
    const ids = [...own].sort(compareIds);
    return h(
      "li",
      { class: "suspect", "data-rank": s.rank, "data-cause": s.cause },
      h(
        "button",
        { class: "suspect-head", onclick: () => own[0] && this.cb.onFinding(own[0]) },
        h("span", { class: "rank" }, `#${s.rank}`),
        h("span", { class: "cause" }, s.cause),
        h("span", { class: "confidence", title: "confidence" }, s.confidence.toFixed(2)),
      ),
      s.body.summary ? h("p", { class: "summary" }, s.body.summary) : null,
      ids.length
        ? h("div", { class: "refs" }, ...ids.map((id) => h("button", { class: `ref${id === this.selected ? " selected" : ""}`, onclick: () => this.cb.onFinding(id) }, id)))
        : null,
    );
  }

  private groupItem(g: FindingGroup): HTMLElement {
    const member = g.members.find((m) => m.id === this.selected);
    const shown = member ?? g.lead;
    const item = h(
      "li",
      {
        class: `finding sev-${g.severity}${member ? " selected" : ""}`,
        "data-finding": g.lead.id,
        "data-count": g.count,
        ...(member && { "data-selected": member.id }),
      },
      h(
        "button",
        { class: "finding-head", "aria-expanded": String(Boolean(member)), onclick: () => this.cb.onFinding(g.lead.id) },
        h("span", { class: `sev sev-${g.severity}` }, g.severity),
        h("span", { class: "fid" }, g.lead.id),
        h("span", { class: "rule" }, g.rule),
        g.count > 1 ? h("span", { class: "group-count", title: `${g.count} instances` }, `×${g.count}`) : null,
        g.verdict !== "violated" ? h("span", { class: "verdict" }, g.verdict) : null,
      ),
      h("div", { class: "title" }, shown.title),
    );
    if (member) item.append(this.body(g, shown));
    return item;
  }

  private body(g: FindingGroup, f: Finding): HTMLElement {
    const witness = f.body.witness ?? [];
    return h(
      "div",
      { class: "finding-body" },
      f.tsUs !== null
        ? h("div", { class: "meta", title: `${formatOffset(f.tsUs - this.originUs, 1)} from the first event` }, `${f.id} at ${formatClock(f.tsUs, 1)} UTC`, f.body.room ? ` · room ${f.body.room}` : "")
        : null,
      g.rooms.length > 1 ? this.roomsOf(g, f) : null,
      f.body.explanation ? h("p", { class: "explanation" }, f.body.explanation) : null,
      f.body.falsify ? h("p", { class: "falsify" }, h("b", {}, "Falsify: "), f.body.falsify) : null,
      witness.length ? h("div", { class: "witness-title" }, `Witness (${witness.length})`) : null,
      ...witness.map((w) =>
        h(
          "button",
          { class: "witness-line", "data-seq": w.seq, onclick: () => this.cb.onWitness(w.seq), title: `seq ${w.seq}` },
          h("span", { class: "where" }, `${w.source}:${w.line}`),
          h("code", {}, w.text),
          w.textLength ? h("span", { class: "cut-note" }, `… ${w.textLength - w.text.length} more characters: select the event to read on`) : null,
        ),
      ),
    );
  }

  /** The group's rooms: each opens its own finding when it has one, else goes to the room's events. */
  private roomsOf(g: FindingGroup, current: Finding): HTMLElement {
    const memberOf = new Map(g.members.filter((m) => m.body.room).map((m) => [m.body.room!, m]));
    const list = h("div", { class: "group-rooms" });
    const show = (n: number) =>
      list.replaceChildren(
        ...g.rooms.slice(0, n).map((room) => {
          const m = memberOf.get(room);
          return h(
            "button",
            {
              class: `room${m?.id === current.id ? " current" : ""}`,
              "data-room": room,
              title: m ? `${m.id}: ${m.title}` : `the events of room ${room}`,
              onclick: () => (m ? this.cb.onFinding(m.id) : this.cb.onRoom(room)),
            },
            room,
          );
        }),
        ...(g.rooms.length > n ? [h("button", { class: "more-rooms", onclick: () => show(g.rooms.length) }, `${g.rooms.length - n} more`)] : []),
      );
    show(ROOMS_SHOWN);
    return h("div", { class: "rooms-block" }, h("div", { class: "witness-title" }, `${g.rooms.length} rooms`), list);
  }
}
