// The model state at the time cursor (the replay's stateAt): rooms and their
// KVPoll state on both sides, page ownership and landed status, transfer
// queues, bootstrap threads, HiCache slots and collective sequence per rank.

import { h, clear } from "./dom.js";
import { formatUtc, kvPollName } from "./format.js";
import type { ModelStateView, StateAnswer } from "./types.js";
import type { StepScope } from "./url.js";

export interface StatePanelCallbacks {
  onStep(dir: "next" | "prev"): void;
  onScope(by: StepScope): void;
  /** Go to the event that made a piece of state what it is. */
  onGoTo(seq: number): void;
}

const MAX_ROWS = 200;

export class StatePanel {
  readonly element: HTMLElement;
  private readonly body: HTMLElement;
  private readonly where: HTMLElement;
  private readonly scope: HTMLSelectElement;

  private changes: StateAnswer["changes"] = {};

  constructor(
    private readonly cb: StatePanelCallbacks,
    by: StepScope,
  ) {
    this.where = h("span", { class: "cursor-where" }, "no cursor");
    this.scope = h(
      "select",
      { class: "step-scope", title: "step by", onchange: () => cb.onScope(this.scope.value as StepScope) },
      ...(["any", "room", "rank", "page"] as const).map((s) => h("option", { value: s, selected: s === by }, s === "any" ? "any event" : `same ${s}`)),
    );
    this.body = h("div", { class: "state-body" }, h("p", { class: "empty" }, "Place the cursor: click the time axis, drag the cursor, or pick a finding."));
    this.element = h(
      "section",
      { class: "state-panel panel" },
      h(
        "header",
        {},
        h("h3", {}, "State at cursor"),
        h("button", { class: "step-back", title: "step back one event ([)", onclick: () => cb.onStep("prev") }, "◀"),
        this.scope,
        h("button", { class: "step-forward", title: "step forward one event (])", onclick: () => cb.onStep("next") }, "▶"),
        this.where,
      ),
      this.body,
    );
  }

  showError(message: string): void {
    clear(this.body);
    this.body.append(h("p", { class: "error" }, message));
  }

  show(answer: StateAnswer, focusRoom: string | null): void {
    this.element.dataset["seq"] = String(answer.atSeq);
    this.changes = answer.changes;
    this.where.textContent = `after seq ${answer.atSeq} (${answer.kind}) · ${formatUtc(answer.tsUs)}`;
    clear(this.body);
    const s = answer.state;
    this.body.append(
      this.roomsTable(s, focusRoom),
      this.pagesTable(s, focusRoom),
      section(
        "Transfer queues",
        s.queues.length,
        table(["rank", "queue", "depth", "changed"], s.queues.map((q) => [q.rank, String(q.queue), String(q.depth), this.cause(q.changedAt)])),
      ),
      section(
        "Bootstrap threads",
        s.bootstrapThreads.length,
        table(
          ["rank", "thread", "error", "changed"],
          s.bootstrapThreads.map((t) => [
            t.rank,
            h("span", { class: t.alive ? "alive" : "dead" }, t.alive ? "alive" : "dead"),
            t.error ?? "",
            this.cause(t.changedAt),
          ]),
        ),
      ),
      section(
        "HiCache slots",
        s.hicacheSlots.length,
        table(
          ["rank", "slot", "layers", "consumer", "changed"],
          s.hicacheSlots.map((sl) => [sl.rank, String(sl.slot), progress(sl.layersDone, sl.layers), sl.consumer ? "waiting reader" : "", this.cause(sl.changedAt)]),
        ),
      ),
      section(
        "Collectives",
        s.collectives.length,
        table(
          ["rank", "group", "op", "seq", "site", "", "changed"],
          s.collectives.map((c) => [c.rank, c.group, c.op, String(c.seq), c.site, c.inside ? "inside" : "", this.cause(c.changedAt)]),
        ),
      ),
    );
  }

  /** A link to the event that set a piece of state, titled with its file and line. */
  private cause(seq: number | null, label?: Cell): Cell {
    if (seq === null || seq < 0) return label ?? "";
    const ref = this.changes[String(seq)];
    return h(
      "button",
      { class: "cause", "data-seq": seq, title: ref ? `${ref.kind} · ${ref.source}:${ref.line}` : `seq ${seq}`, onclick: () => this.cb.onGoTo(seq) },
      label ?? `@${seq}`,
    );
  }

  private roomsTable(s: ModelStateView, focusRoom: string | null): HTMLElement {
    const rooms = [...s.rooms].sort((a, b) => Number(b.room === focusRoom) - Number(a.room === focusRoom));
    const rows = rooms.map((r) => [
      r.room,
      this.cause(r.prefill.changedAt, poll(r.prefill.state)),
      this.cause(r.decode.changedAt, poll(r.decode.state)),
      `${r.prefill.chunksDone}/${r.prefill.chunksPosted}`,
      String(r.decode.chunksNotified),
      r.decode.auxReceived ? "yes" : "no",
      r.decode.pages.map(([lo, hi]) => `[${lo},${hi})`).join(" "),
      r.prefill.queue === null ? "" : String(r.prefill.queue),
    ]);
    const el = section(
      "Rooms",
      s.rooms.length,
      table(["room", "prefill", "decode", "done/posted", "notified", "aux", "decode pages", "queue"], rows, (i) =>
        rooms[i]!.room === focusRoom ? "focus" : "",
      ),
    );
    el.classList.add("rooms");
    return el;
  }

  private pagesTable(s: ModelStateView, focusRoom: string | null): HTMLElement {
    const pages = focusRoom ? s.pages.filter((p) => p.ownerRoom === focusRoom || p.lastWriter?.room === focusRoom) : s.pages;
    const rows = pages.map((p) => [
      `${p.rank} ${p.buffer}${p.layer >= 0 ? ` L${p.layer}` : ""} p${p.page}`,
      p.ownerRoom ?? "free",
      p.lastWriter ? this.cause(p.lastWriter.seq, `${p.lastWriter.room}${p.lastWriter.chunk !== null ? ` c${p.lastWriter.chunk}` : ""}`) : "—",
      this.cause(p.changedAt, h("span", { class: p.landed ? "landed" : "inflight" }, p.landed ? "landed" : "in flight")),
    ]);
    return section(focusRoom ? `Pages of room ${focusRoom}` : "Pages", pages.length, table(["page", "owner", "last writer", ""], rows));
  }
}

type Cell = string | Node;

function table(head: string[], rows: Cell[][], rowClass?: (i: number) => string): HTMLElement {
  if (!rows.length) return h("p", { class: "empty" }, "none");
  const shown = rows.slice(0, MAX_ROWS);
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: "state-table" },
      h("thead", {}, h("tr", {}, ...head.map((c) => h("th", {}, c)))),
      h("tbody", {}, ...shown.map((r, i) => h("tr", { class: rowClass?.(i) ?? "" }, ...r.map((c) => h("td", {}, c))))),
    ),
    rows.length > MAX_ROWS ? h("p", { class: "more" }, `… ${rows.length - MAX_ROWS} more`) : null,
  );
}

function section(title: string, count: number, content: HTMLElement): HTMLElement {
  return h("details", { class: "state-section", open: count > 0 }, h("summary", {}, title, h("span", { class: "count" }, String(count))), content);
}

function poll(state: number | null): HTMLElement {
  return h("span", { class: `kvpoll kvpoll-${state ?? "none"}`, "data-kvpoll": kvPollName(state) }, kvPollName(state));
}

function progress(done: number, total: number): HTMLElement {
  return h("span", { class: "progress" }, h("meter", { min: 0, max: Math.max(1, total), value: done }), ` ${done}/${total}`);
}
