// The bar between the overview and the timeline: the legend (every event
// kind of the incident with its colour and count, and the span types), whose
// entries also hide and show what they name, and the lane filters (roles, and
// a text matched against host, role and rank).

import { h } from "./dom.js";
import { SPAN_TYPES } from "../view/spanTypes.js";
import { formatCount } from "./format.js";
import type { Palette } from "./marks.js";
import type { Lane, LanesAnswer } from "./types.js";

export interface LaneFilterState {
  /** Kind names hidden. */
  hideKinds: string[];
  /** Span types hidden. */
  hideSpans: number[];
  /** Roles shown; empty: all. */
  roles: string[];
  /** Text a lane's host, role or rank must hold; "" for any. */
  lane: string;
}

export const NO_FILTER: LaneFilterState = { hideKinds: [], hideSpans: [], roles: [], lane: "" };

/** Whether a lane passes the role and text filters. */
export function laneShown(state: LaneFilterState): (lane: Lane) => boolean {
  const text = state.lane.trim().toLowerCase();
  return (lane) =>
    (state.roles.length === 0 || state.roles.includes(lane.role ?? "unknown")) &&
    (text === "" || `${lane.group} ${lane.rank} ${lane.component}`.toLowerCase().includes(text));
}

export class FilterBar {
  readonly element: HTMLElement;
  private state: LaneFilterState;

  constructor(
    private readonly lanes: LanesAnswer,
    private readonly palette: Palette,
    initial: LaneFilterState,
    private readonly onChange: (state: LaneFilterState) => void,
  ) {
    this.state = { ...initial };
    this.element = h("div", { class: "filter-bar" });
    this.render();
  }

  private change(patch: Partial<LaneFilterState>): void {
    this.state = { ...this.state, ...patch };
    this.render();
    this.onChange(this.state);
  }

  private render(): void {
    const kinds = this.lanes.kinds.map((k, i) => ({ k, i, n: this.lanes.kindCounts[i] ?? 0 })).sort((a, b) => b.n - a.n || a.k.localeCompare(b.k));
    const chip = (label: string, color: string, hidden: boolean, count: string | null, toggle: () => void, extra: Record<string, string> = {}) =>
      h(
        "button",
        { class: `chip${hidden ? " off" : ""}`, "aria-pressed": String(!hidden), title: hidden ? `show ${label}` : `hide ${label}`, onclick: toggle, ...extra },
        h("span", { class: "swatch", style: `background:${color}` }),
        label,
        count !== null ? h("span", { class: "count" }, count) : null,
      );
    const roles = [...new Set(this.lanes.lanes.map((l) => l.role ?? "unknown"))];
    const laneInput = h("input", {
      type: "search",
      class: "lane-filter",
      placeholder: "lanes: host, rank…",
      "aria-label": "show only lanes whose host, role or rank holds this text",
      value: this.state.lane,
    });
    laneInput.addEventListener("change", () => this.change({ lane: laneInput.value }));
    this.element.replaceChildren(
      h(
        "div",
        { class: "legend", role: "group", "aria-label": "event kinds: click to hide or show" },
        ...kinds.map(({ k, i, n }) =>
          chip(k, this.palette.kindColors[i]!, this.state.hideKinds.includes(k), formatCount(n), () => this.change({ hideKinds: toggled(this.state.hideKinds, k) }), { "data-kind": k }),
        ),
        ...SPAN_TYPES.map(({ name, colour }, type) =>
          chip(name, colour, this.state.hideSpans.includes(type), null, () => this.change({ hideSpans: toggled(this.state.hideSpans, type) }), { "data-span": String(type) }),
        ),
      ),
      h(
        "div",
        { class: "lane-filters", role: "group", "aria-label": "lane filters" },
        ...roles.map((role) =>
          h(
            "button",
            {
              class: `chip role${this.state.roles.length && !this.state.roles.includes(role) ? " off" : ""}`,
              "aria-pressed": String(!this.state.roles.length || this.state.roles.includes(role)),
              "data-role": role,
              onclick: () => this.change({ roles: nextRoles(this.state.roles, role, roles) }),
            },
            role,
          ),
        ),
        laneInput,
      ),
    );
  }
}

function toggled<T>(list: readonly T[], item: T): T[] {
  return list.includes(item) ? list.filter((x) => x !== item) : [...list, item];
}

/** Clicking a role shows only it; clicking the only role shown shows all again; with several shown, toggles it. */
function nextRoles(shown: readonly string[], role: string, all: readonly string[]): string[] {
  if (shown.length === 0) return [role];
  const next = toggled(shown, role);
  return next.length === 0 || next.length === all.length ? [] : next;
}
