// One incident: the overview, the filters and the timeline, the grouped
// findings, the selected event and the state at the cursor, kept in step
// with each other and with the URL.

import { groupFindings, roomsOfFinding, type GroupedFindings } from "../view/findingGroups.js";
import { windowAround } from "../view/window.js";
import { api } from "./api.js";
import { h, clear } from "./dom.js";
import { EventPanel } from "./event-panel.js";
import { PagePanel } from "./page-panel.js";
import { FilterBar, laneShown, type LaneFilterState } from "./filters.js";
import { FindingsPanel } from "./findings-panel.js";
import { HypothesisBox, VIOLATION_FLAG, violationFlags } from "./hypothesis-box.js";
import { formatCount, formatDuration } from "./format.js";
import { bindKeys, keysDialog } from "./keys.js";
import { Palette } from "./marks.js";
import { Omnibox } from "./omnibox.js";
import { Overview } from "./overview.js";
import { SourcesPanel } from "./sources-panel.js";
import { StatePanel, STATE_ROWS } from "./state-panel.js";
import { panelSplitter } from "./splitter.js";
import { Timeline } from "./timeline.js";
import type { EventAnswer, Finding, FindingsAnswer, IncidentRecord, LanesAnswer, OverviewAnswer, PlacedViolation, PlacedWitness, RoomFlow, StateRequest } from "./types.js";
import { writeUrl, type StepScope, type ViewState } from "./url.js";

const OVERVIEW_BUCKETS = 1200;

export async function openIncident(root: HTMLElement, view: ViewState & { incident: string }): Promise<void> {
  const id = view.incident;
  const [incident, lanes, findings, overview] = await Promise.all([api.incident(id), api.lanes(id), api.findings(id), api.overview(id, OVERVIEW_BUCKETS)]);
  const controller = new IncidentView(root, id, incident, lanes, findings, overview, view);
  await controller.restore();
}

class IncidentView {
  private readonly timeline: Timeline;
  private readonly overview: Overview;
  private readonly filters: FilterBar;
  private readonly grouped: GroupedFindings;
  private readonly findingsPanel: FindingsPanel;
  private readonly hypothesisBox: HypothesisBox;
  private violations: PlacedViolation[] = [];
  private readonly eventPanel: EventPanel;
  private readonly pagePanel = new PagePanel();
  private readonly statePanel: StatePanel;
  private readonly omnibox: Omnibox;
  private readonly notice: HTMLElement;
  private readonly foldButton: HTMLButtonElement;
  private readonly labelsButton: HTMLButtonElement;
  private selected: EventAnswer | null = null;
  private flow: RoomFlow | null = null;
  private stateRequest: AbortController | null = null;
  private urlTimer: number | undefined;
  private stateTimer: number | undefined;
  /** The page a step by page follows (StepQuery.page), kept while the steps move the selection. */
  private followedPage: number | null = null;

  constructor(
    root: HTMLElement,
    private readonly id: string,
    incident: IncidentRecord,
    private readonly lanes: LanesAnswer,
    private readonly findings: FindingsAnswer,
    private readonly overviewData: OverviewAnswer,
    private readonly view: ViewState & { incident: string },
  ) {
    const origin = lanes.datedFromUs ?? lanes.firstTsUs ?? 0;
    const palette = new Palette(lanes);
    this.grouped = groupFindings(findings.findings, findings.suspects);
    this.timeline = new Timeline(id, lanes, palette, {
      onView: (from, to) => {
        this.view.from = from;
        this.view.to = to;
        this.overview?.setWindow(from, to);
        this.saveUrlSoon();
      },
      onSelect: (seq) => void this.goTo(seq),
      onCursor: (ts) => void this.cursorAtTime(ts),
      onFlag: (fid) => void this.flagClicked(fid),
      onToggle: (rows) => {
        this.view.rows = rows;
        this.saveUrlSoon();
      },
      onPins: (pins) => {
        this.view.pins = pins;
        this.saveUrlSoon();
      },
      onError: (m) => this.say(m),
    }, overviewData.gaps);
    this.overview = new Overview(overviewData, this.timeline.startUs, this.timeline.endUs, {
      onBrush: (from, to) => this.timeline.setWindow(from, to),
      onFlag: (fid) => void this.flagClicked(fid),
    });
    this.filters = new FilterBar(lanes, palette, view, (state) => this.applyFilters(state));
    this.findingsPanel = new FindingsPanel(this.grouped, findings.suspects, origin, {
      onFinding: (fid) => void this.selectFinding(fid),
      onWitness: (seq) => void this.goTo(seq),
      onRoom: (room) => void this.goToRoom(room),
    });
    this.hypothesisBox = new HypothesisBox(id, {
      onViolations: (placed) => this.setViolations(placed),
      onWitness: (seq) => void this.goTo(seq, true),
      onHypothesis: (text) => {
        if (text) this.view.hyp = text;
        else delete this.view.hyp;
        this.saveUrlSoon();
      },
    });
    this.eventPanel = new EventPanel({ onStep: (dir, by) => void this.step(dir, by), moreText: (seq, from, length) => api.eventText(this.id, seq, from, length) });
    this.statePanel = new StatePanel(
      {
        onStep: (dir) => void this.step(dir, this.view.by),
        onScope: (by) => this.setScope(by),
        onGoTo: (seq) => void this.goTo(seq),
        onPage: (d) => void this.openPage(d),
        onFilter: (f) => {
          Object.assign(this.view, { roomText: f.text, inFinding: f.inFinding, notSuccess: f.notSuccess });
          this.saveUrlSoon();
          this.reloadStateSoon();
        },
      },
      view.by,
      { text: view.roomText, inFinding: view.inFinding, notSuccess: view.notSuccess },
    );
    this.omnibox = new Omnibox(id, lanes, {
      onRoom: (room, seq) => void this.goToRoom(room, seq),
      onSeq: (seq) => void this.goTo(seq, true),
      onLane: (lane) => this.timeline.focusLane(lane),
    });
    this.notice = h("div", { class: "notice", role: "status", hidden: true });
    this.foldButton = h("button", { class: "toggle folds", "aria-pressed": "false", title: "fold the stretches with no event (G)", onclick: () => this.setFolds(!this.view.folds) }, "Fold empty time");
    this.labelsButton = h("button", { class: "toggle labels", "aria-pressed": "true", title: "names beside marks (L)", onclick: () => this.setLabels(!this.view.labels) }, "Names");
    const dialog = keysDialog();
    clear(root);
    const bottom = h("div", { class: "bottom" }, this.eventPanel.element, this.pagePanel.element, this.statePanel.element);
    const page = h(
      "main",
      { class: "incident-view" },
      this.header(incident.name, dialog),
      h("div", { class: "side" }, this.findingsPanel.element, this.hypothesisBox.element, new SourcesPanel(() => api.sources(this.id), { sources: incident.summary?.sources ?? 0 }).element),
      h("div", { class: "timeline-area" }, this.overview.element, this.filters.element, this.timeline.element, this.notice),
      bottom,
    );
    bottom.prepend(panelSplitter(page, bottom));
    root.append(page, dialog);
    bindKeys(
      {
        zoom: (f) => this.timeline.zoomBy(f),
        pan: (s) => this.timeline.panBy(s),
        step: (dir) => void this.step(dir, this.view.by),
        find: () => this.omnibox.focus(),
        fit: () => this.fit(),
        toggleFolds: () => this.setFolds(!this.view.folds),
        toggleLabels: () => this.setLabels(!this.view.labels),
        escape: () => this.clearFinding(),
      },
      dialog,
    );
  }

  private header(name: string, dialog: HTMLDialogElement): HTMLElement {
    const l = this.lanes;
    const span = l.datedFromUs !== null && l.lastTsUs !== null ? formatDuration(l.lastTsUs - l.datedFromUs) : "empty";
    return h(
      "header",
      { class: "incident-header" },
      h("a", { class: "back", href: "./" }, "← incidents"),
      h("h1", {}, name),
      h("span", { class: "stats" }, `${formatCount(l.events)} events · ${l.lanes.length} lanes · ${span}`),
      this.omnibox.element,
      this.foldButton,
      this.labelsButton,
      h("button", { class: "fit", onclick: () => this.fit(), title: "show the whole incident (F)" }, "Fit"),
      h("button", { class: "keys", onclick: () => dialog.showModal(), title: "keyboard shortcuts (?)", "aria-label": "keyboard shortcuts" }, "?"),
    );
  }

  /** Applies the URL's view: filters, folds, rows, finding, window, selection, cursor. */
  async restore(): Promise<void> {
    const v = this.view;
    this.applyFilters(v, false);
    this.setLabels(v.labels);
    if (v.folds) this.setFolds(true);
    this.timeline.setToggled(v.rows);
    this.timeline.setPinned(v.pins);
    this.timeline.setFindings(this.grouped.violated);
    this.overview.setFindings(this.grouped.violated);
    if (v.finding) this.showFinding(v.finding, v.from === undefined);
    if (v.from !== undefined && v.to !== undefined) this.timeline.setWindow(v.from, v.to);
    else if (!v.finding) this.fit();
    if (v.sel !== undefined) await this.select(v.sel, false);
    if (v.cursor !== undefined) await this.cursorAt(v.cursor);
    if (v.hyp) await this.hypothesisBox.check(v.hyp);
  }

  /** A hypothesis's violations flagged beside the findings' flags, on the timeline and on the overview. */
  private setViolations(placed: PlacedViolation[]): void {
    this.violations = placed;
    const flags = [...this.grouped.violated, ...violationFlags(placed)];
    this.timeline.setFindings(flags);
    this.overview.setFindings(flags);
  }

  private async flagClicked(fid: string): Promise<void> {
    const violation = VIOLATION_FLAG.exec(fid);
    if (!violation) return this.selectFinding(fid);
    const v = this.violations[Number(violation[1]) - 1];
    if (v) await this.goTo(v.seq, true);
  }

  private applyFilters(state: LaneFilterState, save = true): void {
    Object.assign(this.view, { hideKinds: state.hideKinds, hideSpans: state.hideSpans, roles: state.roles, lane: state.lane });
    this.timeline.setLaneFilter(laneShown(state));
    this.timeline.setKindFilter({ hide: state.hideKinds.map((k) => this.lanes.kinds.indexOf(k)).filter((i) => i >= 0), hideSpans: state.hideSpans });
    if (save) this.saveUrlSoon();
  }

  private setFolds(on: boolean): void {
    this.view.folds = on;
    const l = this.lanes;
    const foldUs = Math.max(2e5, ((l.lastTsUs ?? 0) - (l.firstTsUs ?? 0)) * 0.004);
    this.timeline.setFolds(on ? this.overviewData.gaps : [], foldUs);
    this.overview.setFolds(this.timeline.timeMap);
    this.foldButton.setAttribute("aria-pressed", String(on));
    this.foldButton.disabled = this.overviewData.gaps.length === 0;
    this.foldButton.title = this.overviewData.gaps.length ? "fold the stretches with no event (G)" : "no stretch without events to fold";
    this.saveUrlSoon();
  }

  private setLabels(on: boolean): void {
    this.view.labels = on;
    this.timeline.setLabels(on);
    this.labelsButton.setAttribute("aria-pressed", String(on));
    this.saveUrlSoon();
  }

  /** The least margin shown around what is zoomed to: enough to see what came before and after. */
  private contextUs(): number {
    return Math.max(500, ((this.lanes.lastTsUs ?? 0) - (this.lanes.firstTsUs ?? 0)) * 0.005);
  }

  /**
   * Shows the whole incident. One stretch without events longer than half of
   * it (a Gloo timeout half an hour after the rest) would leave everything
   * else in a few pixels: then Fit folds the empty stretches, and says so.
   */
  private fit(): void {
    const l = this.lanes;
    const gaps = this.overviewData.gaps;
    const longest = gaps.reduce((m, [from, to]) => Math.max(m, to - from), 0);
    if (!this.view.folds && longest > ((l.lastTsUs ?? 0) - (l.firstTsUs ?? 0)) / 2) {
      this.setFolds(true);
      this.say(`Fit folded ${gaps.length} stretch${gaps.length > 1 ? "es" : ""} without events (the longest ${formatDuration(longest)}); G unfolds them.`);
    }
    this.timeline.setWindow(this.timeline.startUs, this.timeline.endUs);
  }

  private say(message: string | null): void {
    this.notice.hidden = message === null;
    this.notice.textContent = message ?? "";
  }

  private saveUrlSoon(): void {
    window.clearTimeout(this.urlTimer);
    this.urlTimer = window.setTimeout(() => writeUrl(this.view), 150);
  }

  private finding(fid: string): Finding | undefined {
    return this.findings.findings.find((f) => f.id === fid);
  }

  /** Highlights a finding's witness and, when asked, zooms to it. */
  private showFinding(fid: string, zoom: boolean): Finding | undefined {
    const f = this.finding(fid);
    if (!f) {
      this.say(`no finding ${fid} in this incident`);
      return undefined;
    }
    this.view.finding = fid;
    this.findingsPanel.select(fid);
    this.statePanel.setFindingRooms(roomsOfFinding(this.grouped, f));
    this.timeline.reveal([...new Set(f.placed.map((w) => w.lane))]);
    this.timeline.setWitness(f.placed, fid);
    if (zoom && f.placed.length) {
      const [from, to] = windowAround(f.placed.map((w) => w.tsUs), 0.15, this.contextUs());
      this.timeline.setWindow(from, to);
      this.timeline.scrollToLanes(f.placed.map((w) => w.lane), latestWitness(f)!.lane);
    }
    this.saveUrlSoon();
    return f;
  }

  /** A finding: zoom to its witness, highlight it, and put the cursor on its latest witness event. */
  private async selectFinding(fid: string): Promise<void> {
    const f = this.showFinding(fid, true);
    const last = f && latestWitness(f);
    if (last) await this.goTo(last.seq);
    if (f?.body.room) await this.loadFlow(f.body.room);
  }

  private clearFinding(): void {
    delete this.view.finding;
    this.findingsPanel.select(null);
    this.statePanel.setFindingRooms([]);
    this.timeline.setWitness([], null);
    this.saveUrlSoon();
  }

  /** Selects an event and moves the cursor to it; `show` brings it into the window. */
  private async goTo(seq: number, show = false): Promise<void> {
    await this.select(seq, true);
    if (show && this.selected) this.bringIntoView(this.selected.event.tsUs);
    await this.cursorAt(seq);
  }

  private bringIntoView(tsUs: number): void {
    const [from, to] = this.timeline.window;
    if (tsUs >= from && tsUs <= to) return;
    const half = Math.max(5e5, (to - from) / 2);
    this.timeline.setWindow(tsUs - half, tsUs + half);
  }

  /** A room: its first event selected, its flow drawn, the window on its events. */
  private async goToRoom(room: string, firstSeq?: number): Promise<void> {
    const seq = firstSeq ?? (await api.search(this.id, room, false)).rooms.find((r) => r.room === room)?.firstSeq;
    if (seq === undefined) {
      this.say(`no event of room ${room}`);
      return;
    }
    await this.select(seq, true);
    await this.loadFlow(room);
    const times = this.flow?.events.map((e) => e.tsUs) ?? [];
    if (times.length > 1) this.timeline.setWindow(...windowAround(times, 0.1, this.contextUs()));
    else if (this.selected) this.bringIntoView(this.selected.event.tsUs);
    await this.cursorAt(seq);
  }

  private async select(seq: number, scroll: boolean): Promise<void> {
    try {
      const answer = await api.event(this.id, seq);
      this.selected = answer;
      this.followedPage = null;
      this.view.sel = seq;
      this.eventPanel.show(answer);
      void this.showPage(answer.event);
      const lane = answer.lane;
      if (lane !== null) {
        this.timeline.reveal([lane]);
        this.timeline.setSelected({ seq, tsUs: answer.event.tsUs, lane });
        if (scroll) this.timeline.scrollToLane(lane);
      }
      await this.loadFlow(answer.event.room);
      this.saveUrlSoon();
    } catch (err) {
      this.eventPanel.show(null, (err as Error).message);
    }
  }

  /** A page-dump record opens its page's bytes at that record; any other event closes them. */
  private async showPage(ev: EventAnswer["event"]): Promise<void> {
    if (ev.kind !== "page.dump" || ev.pageLo === null) return this.pagePanel.show(null);
    try {
      this.pagePanel.show(await api.page(this.id, { seq: ev.seq, page: ev.pageLo, room: ev.room, layer: ev.layer }));
    } catch (err) {
      this.pagePanel.show(null, (err as Error).message);
    }
  }

  /** A dumped page the state panel lists at the cursor: its bytes in the page panel. */
  private async openPage(d: { seq: number; page: number; room: string; layer: number }): Promise<void> {
    try {
      this.pagePanel.show(await api.page(this.id, d));
    } catch (err) {
      this.pagePanel.show(null, (err as Error).message);
    }
  }

  private async loadFlow(room: string | null): Promise<void> {
    if (room === this.flow?.room) return;
    try {
      this.flow = room ? await api.flow(this.id, room) : null;
    } catch (err) {
      this.flow = null;
      this.say(`the flow of room ${room}: ${(err as Error).message}`);
    }
    this.timeline.setFlow(this.flow);
  }

  private async cursorAt(seq: number): Promise<void> {
    await this.loadState({ seq }, false);
  }

  private async cursorAtTime(ts: number): Promise<void> {
    await this.loadState({ ts }, true);
  }

  /** The state panel's filter changed: the server selects the rooms, so ask again (once typing pauses). */
  private reloadStateSoon(): void {
    window.clearTimeout(this.stateTimer);
    this.stateTimer = window.setTimeout(() => {
      if (this.view.cursor !== undefined) void this.loadState({ seq: this.view.cursor }, false);
      else this.statePanel.busy(false);
    }, 150);
  }

  /** The rooms and pages of the state the panel shows: its filter, the selected event's room first, a page of each. */
  private stateRequestFor(focus: string | null): StateRequest {
    const f = this.statePanel.filter;
    return {
      limit: STATE_ROWS,
      text: f.text,
      notSuccess: f.notSuccess,
      ...(f.inFinding && this.view.finding !== undefined && { finding: this.view.finding }),
      ...(focus !== null && { focus }),
    };
  }

  private async loadState(at: { seq: number } | { ts: number }, selectIt: boolean): Promise<void> {
    this.stateRequest?.abort();
    const request = new AbortController();
    this.stateRequest = request;
    this.statePanel.busy(true);
    try {
      // A cursor placed by time selects a new event: the room of the one selected before is no focus for it.
      const focus = "ts" in at ? null : (this.selected?.event.room ?? null);
      const answer = await api.state(this.id, at, this.stateRequestFor(focus), request.signal);
      this.view.cursor = answer.atSeq;
      this.timeline.setCursor(answer.tsUs);
      this.statePanel.show(answer, focus);
      this.saveUrlSoon();
      if (selectIt) await this.select(answer.atSeq, false);
    } catch (err) {
      if (!request.signal.aborted) this.statePanel.showError((err as Error).message);
    }
  }

  private setScope(by: StepScope): void {
    this.view.by = by;
    this.saveUrlSoon();
  }

  /** Moves cursor and selection to the previous/next event (of the same room, rank or page). */
  private async step(dir: "next" | "prev", by: StepScope): Promise<void> {
    const from = this.view.sel ?? this.view.cursor;
    if (from === undefined) {
      // Nothing to step from yet: the keyboard places the cursor at the edge of the window it steps into.
      const [start, end] = this.timeline.window;
      // The first dated record: the undated ones are drawn apart before it, but have no time to place a cursor at.
      const first = this.lanes.datedFromUs ?? this.lanes.firstTsUs ?? start;
      const last = this.lanes.lastTsUs ?? end;
      await this.cursorAtTime(dir === "next" ? Math.max(start, first) : Math.min(end, last));
      this.say(`Cursor placed at the ${dir === "next" ? "start" : "end"} of the window; [ and ] step from there.`);
      return;
    }
    try {
      // Stepping by page follows one page, the first the selected event touches, until another event is selected.
      const page = by === "page" ? (this.followedPage ?? this.selected?.event.pageLo ?? null) : null;
      const answer = await api.step(this.id, from, dir, by, page);
      if (answer.seq === null) {
        this.say(`No ${dir === "next" ? "later" : "earlier"} event${by === "any" ? "" : ` of the same ${by}${page !== null ? ` ${page}` : ""}`}.`);
        return;
      }
      this.say(null);
      await this.goTo(answer.seq, true);
      this.followedPage = page;
    } catch (err) {
      this.say((err as Error).message);
    }
  }
}

/** The witness event latest in the history: where the finding is proven. */
function latestWitness(f: Finding): PlacedWitness | undefined {
  return f.placed.length ? f.placed.reduce((a, b) => (b.seq > a.seq ? b : a)) : undefined;
}
