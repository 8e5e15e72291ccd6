// One incident: the timeline, the findings list, the selected event and the
// state at the cursor, kept in step with each other and with the URL.

import { api } from "./api.js";
import { h, clear } from "./dom.js";
import { EventPanel } from "./event-panel.js";
import { FindingsPanel } from "./findings-panel.js";
import { formatCount, formatDuration } from "./format.js";
import { StatePanel } from "./state-panel.js";
import { Timeline } from "./timeline.js";
import type { EventAnswer, Finding, FindingsAnswer, LanesAnswer, PlacedWitness, RoomFlow } from "./types.js";
import { writeUrl, type StepScope, type ViewState } from "./url.js";

export async function openIncident(root: HTMLElement, view: ViewState & { incident: string }): Promise<void> {
  const id = view.incident;
  const [incident, lanes, findings] = await Promise.all([api.incident(id), api.lanes(id), api.findings(id)]);
  const controller = new IncidentView(root, id, lanes, findings, view);
  controller.header(incident.name, lanes);
  await controller.restore();
}

class IncidentView {
  private readonly timeline: Timeline;
  private readonly findingsPanel: FindingsPanel;
  private readonly eventPanel: EventPanel;
  private readonly statePanel: StatePanel;
  private readonly notice: HTMLElement;
  private readonly headerEl: HTMLElement;
  private selected: EventAnswer | null = null;
  private flow: RoomFlow | null = null;
  private stateRequest: AbortController | null = null;
  private urlTimer: number | undefined;

  constructor(
    root: HTMLElement,
    private readonly id: string,
    private readonly lanes: LanesAnswer,
    private readonly findings: FindingsAnswer,
    private readonly view: ViewState & { incident: string },
  ) {
    const origin = lanes.firstTsUs ?? 0;
    this.timeline = new Timeline(id, lanes, {
      onView: (from, to) => {
        this.view.from = from;
        this.view.to = to;
        this.saveUrlSoon();
      },
      onSelect: (seq) => void this.goTo(seq),
      onCursor: (ts) => void this.cursorAtTime(ts),
      onFlag: (fid) => void this.selectFinding(fid),
      onToggle: (rows) => {
        this.view.rows = rows;
        this.saveUrlSoon();
      },
      onError: (m) => this.say(m),
    });
    this.findingsPanel = new FindingsPanel(findings, origin, {
      onFinding: (fid) => void this.selectFinding(fid),
      onWitness: (seq) => void this.goTo(seq),
    });
    this.eventPanel = new EventPanel({
      onStep: (dir, by) => void this.step(dir, by),
      moreText: (seq, from, length) => api.eventText(this.id, seq, from, length),
    });
    this.statePanel = new StatePanel(
      { onStep: (dir) => void this.step(dir, this.view.by), onScope: (by) => this.setScope(by), onGoTo: (seq) => void this.goTo(seq) },
      view.by,
    );
    this.notice = h("div", { class: "notice", role: "status", hidden: true });
    this.headerEl = h("div", { class: "incident-header" });
    clear(root);
    root.append(
      h(
        "div",
        { class: "incident-view" },
        this.headerEl,
        this.findingsPanel.element,
        h("div", { class: "timeline-area" }, this.timeline.element, this.notice),
        h("div", { class: "bottom" }, this.eventPanel.element, this.statePanel.element),
      ),
    );
    document.addEventListener("keydown", (ev) => {
      if (ev.target instanceof HTMLInputElement || ev.target instanceof HTMLSelectElement) return;
      if (ev.key === "[" || ev.key === "ArrowLeft") void this.step("prev", this.view.by);
      else if (ev.key === "]" || ev.key === "ArrowRight") void this.step("next", this.view.by);
      else if (ev.key === "Escape") this.clearFinding();
    });
  }

  header(name: string, lanes: LanesAnswer): void {
    const span = lanes.firstTsUs !== null && lanes.lastTsUs !== null ? formatDuration(lanes.lastTsUs - lanes.firstTsUs) : "empty";
    this.headerEl.append(
      h("a", { class: "back", href: "./" }, "← incidents"),
      h("h1", {}, name),
      h("span", { class: "stats" }, `${formatCount(lanes.events)} events · ${lanes.lanes.length} lanes · ${span}`),
      h("button", { class: "fit", onclick: () => this.fit(), title: "show the whole incident" }, "Fit"),
    );
  }

  /** Applies the URL's view: rows, finding, window, selection, cursor. */
  async restore(): Promise<void> {
    const v = this.view;
    this.timeline.setToggled(v.rows);
    this.timeline.setFindings(this.findings.findings);
    if (v.finding) this.showFinding(v.finding, v.from === undefined);
    if (v.from !== undefined && v.to !== undefined) this.timeline.setWindow(v.from, v.to);
    else if (!v.finding) this.fit();
    if (v.sel !== undefined) await this.select(v.sel, false);
    if (v.cursor !== undefined) await this.cursorAt(v.cursor);
  }

  private fit(): void {
    const first = this.lanes.firstTsUs ?? 0;
    const last = this.lanes.lastTsUs ?? first;
    const pad = Math.max(1000, (last - first) * 0.01);
    this.timeline.setWindow(first - pad, last + pad);
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
    this.timeline.reveal([...new Set(f.placed.map((w) => w.lane))]);
    this.timeline.setWitness(f.placed, fid);
    if (zoom && f.placed.length) {
      const lo = Math.min(...f.placed.map((w) => w.tsUs));
      const hi = Math.max(...f.placed.map((w) => w.tsUs));
      const pad = Math.max(500, (hi - lo) * 0.15);
      this.timeline.setWindow(lo - pad, hi + pad);
      this.timeline.scrollToLane(latestWitness(f)!.lane);
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
    this.timeline.setWitness([], null);
    this.saveUrlSoon();
  }

  /** Selects an event and moves the cursor to it. */
  private async goTo(seq: number): Promise<void> {
    await this.select(seq, true);
    await this.cursorAt(seq);
  }

  private async select(seq: number, scroll: boolean): Promise<void> {
    try {
      const answer = await api.event(this.id, seq);
      this.selected = answer;
      this.view.sel = seq;
      this.eventPanel.show(answer);
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

  private async loadFlow(room: string | null): Promise<void> {
    if (room === this.flow?.room) return;
    this.flow = room ? await api.flow(this.id, room) : null;
    this.timeline.setFlow(this.flow);
  }

  private async cursorAt(seq: number): Promise<void> {
    this.stateRequest?.abort();
    const request = new AbortController();
    this.stateRequest = request;
    try {
      const answer = await api.stateAtSeq(this.id, seq, request.signal);
      this.showState(answer);
    } catch (err) {
      if (!request.signal.aborted) this.statePanel.showError((err as Error).message);
    }
  }

  private async cursorAtTime(ts: number): Promise<void> {
    this.stateRequest?.abort();
    const request = new AbortController();
    this.stateRequest = request;
    try {
      const answer = await api.stateAtTime(this.id, ts, request.signal);
      this.showState(answer);
      await this.select(answer.atSeq, false);
    } catch (err) {
      if (!request.signal.aborted) this.statePanel.showError((err as Error).message);
    }
  }

  private showState(answer: Awaited<ReturnType<typeof api.stateAtSeq>>): void {
    this.view.cursor = answer.atSeq;
    this.timeline.setCursor(answer.tsUs);
    this.statePanel.show(answer, this.selected?.event.room ?? null);
    this.saveUrlSoon();
  }

  private setScope(by: StepScope): void {
    this.view.by = by;
    this.saveUrlSoon();
  }

  /** Moves cursor and selection to the previous/next event (of the same room, rank or page). */
  private async step(dir: "next" | "prev", by: StepScope): Promise<void> {
    const from = this.view.sel ?? this.view.cursor;
    if (from === undefined) {
      this.say("Select an event or place the cursor first.");
      return;
    }
    try {
      const answer = await api.step(this.id, from, dir, by);
      if (answer.seq === null) {
        this.say(`No ${dir === "next" ? "later" : "earlier"} event${by === "any" ? "" : ` of the same ${by}`}.`);
        return;
      }
      this.say(null);
      await this.goTo(answer.seq);
    } catch (err) {
      this.say((err as Error).message);
    }
  }
}

/** The witness event latest in the history: where the finding is proven. */
function latestWitness(f: Finding): PlacedWitness | undefined {
  return f.placed.length ? f.placed.reduce((a, b) => (b.seq > a.seq ? b : a)) : undefined;
}
