// The model state at the time cursor (the replay's stateAt): rooms and their
// KVPoll state on both sides, page ownership and landed status, transfer
// queues, bootstrap threads, HiCache slots, collective sequence per rank, and
// the pages dumped so far with the page kernels' verdicts (each opens its
// bytes in the page panel).
// The rooms can be filtered (a text, the rooms of the selected finding, the
// rooms not at Success): the server selects them and sends a page of rooms
// and pages with the totals (a wedged incident holds tens of thousands); the
// collectives come in rank order with the ranks that parted ways marked.

import { culpritMark, divergenceNote, sortCollectives } from "../view/collectives.js";
import { h, clear } from "./dom.js";
import { formatUtc, kvPollName } from "./format.js";
import type { ModelStateView, StateAnswer } from "./types.js";
import type { StepScope } from "./url.js";

export interface StatePanelCallbacks {
  onStep(dir: "next" | "prev"): void;
  onScope(by: StepScope): void;
  /** Go to the event that made a piece of state what it is. */
  onGoTo(seq: number): void;
  onFilter(filter: RoomFilter): void;
  /** Open a dumped page's bytes in the page panel. */
  onPage(page: DumpedPage): void;
}

export interface RoomFilter {
  text: string;
  inFinding: boolean;
  notSuccess: boolean;
}

type Room = ModelStateView["rooms"][number];
type DumpedPage = ModelStateView["dumpedPages"][number];
type Inferred = NonNullable<Room["inferred"]>;

/** Rows a table of the panel shows; the server sends as many rooms and pages. */
export const STATE_ROWS = 200;

export class StatePanel {
  readonly element: HTMLElement;
  private readonly body: HTMLElement;
  private readonly where: HTMLElement;
  private readonly scope: HTMLSelectElement;
  private readonly search: HTMLInputElement;
  private readonly inFinding: HTMLInputElement;
  private readonly notSuccess: HTMLInputElement;
  private changes: StateAnswer["changes"] = {};

  constructor(
    private readonly cb: StatePanelCallbacks,
    by: StepScope,
    filter: RoomFilter,
  ) {
    this.where = h("span", { class: "cursor-where" }, "no cursor");
    this.scope = h(
      "select",
      { class: "step-scope", title: "step by", "aria-label": "step by", onchange: () => cb.onScope(this.scope.value as StepScope) },
      ...(["any", "room", "rank", "page"] as const).map((s) => h("option", { value: s, selected: s === by }, s === "any" ? "any event" : `same ${s}`)),
    );
    this.search = h("input", { type: "search", class: "room-filter", placeholder: "filter rooms", "aria-label": "show the rooms that hold this text", value: filter.text });
    this.inFinding = h("input", { type: "checkbox", class: "in-finding", checked: filter.inFinding, disabled: true });
    this.notSuccess = h("input", { type: "checkbox", class: "not-success", checked: filter.notSuccess });
    for (const el of [this.search, this.inFinding, this.notSuccess]) el.addEventListener(el === this.search ? "input" : "change", () => this.filterChanged());
    this.body = h("div", { class: "state-body" }, h("p", { class: "empty" }, "Place the cursor: click the time axis, drag the cursor, or pick a finding."));
    this.element = h(
      "section",
      { class: "state-panel panel", "aria-label": "state at the cursor" },
      h(
        "header",
        {},
        h("h3", {}, "State at cursor"),
        h("button", { class: "step-back", title: "step back one event ([)", "aria-label": "step back", onclick: () => cb.onStep("prev") }, "◀"),
        this.scope,
        h("button", { class: "step-forward", title: "step forward one event (])", "aria-label": "step forward", onclick: () => cb.onStep("next") }, "▶"),
        this.where,
      ),
      h(
        "div",
        { class: "room-filters" },
        this.search,
        h("label", { title: "only the rooms the selected finding names" }, this.inFinding, " rooms in this finding"),
        h("label", { title: "only rooms whose prefill or decode side is not Success" }, this.notSuccess, " rooms not Success"),
      ),
      this.body,
    );
  }

  get filter(): RoomFilter {
    return { text: this.search.value.trim(), inFinding: this.inFinding.checked, notSuccess: this.notSuccess.checked };
  }

  /** The rooms of the selected finding (its group's rooms and its own), or none: whether "rooms in this finding" can be asked for. */
  setFindingRooms(rooms: readonly string[]): void {
    this.inFinding.disabled = rooms.length === 0;
    if (this.inFinding.checked) this.filterChanged();
  }

  private filterChanged(): void {
    this.busy(true);
    this.cb.onFilter(this.filter);
  }

  /** aria-busy while the rooms the filter asks for are on their way (tests and screen readers wait on it). */
  busy(on: boolean): void {
    if (on) this.element.setAttribute("aria-busy", "true");
    else this.element.removeAttribute("aria-busy");
  }

  showError(message: string): void {
    this.busy(false);
    clear(this.body);
    this.body.append(h("p", { class: "error" }, message));
  }

  show(answer: StateAnswer, focusRoom: string | null): void {
    this.busy(false);
    this.changes = answer.changes;
    this.where.textContent = `after seq ${answer.atSeq} (${answer.kind}) · ${formatUtc(answer.tsUs)}`;
    clear(this.body);
    const s = answer.state;
    // A new cursor starts at the top: the few threads, queues and collectives that tell the story come
    // first, the rooms (tens to thousands) after them.
    if (this.element.dataset["seq"] !== String(answer.atSeq)) this.element.scrollTop = 0;
    this.body.append(
      section(
        "Bootstrap threads",
        s.bootstrapThreads.length,
        table(
          ["rank", "thread", "error", "changed"],
          [...s.bootstrapThreads]
            .sort((a, b) => a.rank.localeCompare(b.rank, "en", { numeric: true }))
            .map((t) => [t.rank, h("span", { class: t.alive ? "alive" : "dead" }, t.alive ? "alive" : "dead"), t.error ?? "", this.cause(t.changedAt)]),
        ),
      ),
      section(
        "Transfer queues",
        s.queues.length,
        table(
          ["rank", "queue", "depth", "changed"],
          s.queues.map((q) => [q.rank, q.gauge ?? String(q.queue), String(q.depth), q.inferred ? this.inferredMark(q.inferred) : this.cause(q.changedAt)]),
        ),
      ),
      this.collectivesTable(s),
      section(
        "HiCache slots",
        s.hicacheSlots.length,
        table(
          ["rank", "slot", "layers", "consumer", "changed"],
          s.hicacheSlots.map((sl) => [sl.rank, String(sl.slot), progress(sl.layersDone, sl.layers), sl.consumer ? "waiting reader" : "", this.cause(sl.changedAt)]),
        ),
      ),
      this.roomsTable(s, answer.totals, focusRoom),
      this.pagesTable(s, answer.totals, focusRoom),
      this.dumpedPagesTable(s, focusRoom),
    );
    this.element.dataset["seq"] = String(answer.atSeq);
  }

  /** A link to the event that set a piece of state, titled with its file and line. */
  /** A room, marked when its state is implied by a later line (with a link to it) or rests on what the model assumed. */
  private roomCell(r: Room): Cell {
    if (!r.inferred && !r.assumed?.length) return r.room;
    return h(
      "span",
      { class: "room-id" },
      r.room,
      r.inferred ? this.inferredMark(r.inferred) : null,
      r.assumed?.length ? h("span", { class: "assumed", title: `the model assumed: ${r.assumed.join("; ")}` }, " assumed") : null,
    );
  }

  /** "inferred": the state a later line implies; the button opens that line. */
  private inferredMark(i: Inferred): HTMLElement {
    return h("button", { class: "cause inferred", "data-seq": i.seq, title: `inferred from seq ${i.seq}: ${i.reason}`, onclick: () => this.cb.onGoTo(i.seq) }, "inferred");
  }

  private cause(seq: number | null, label?: Cell): Cell {
    if (seq === null || seq < 0) return label ?? "";
    const ref = this.changes[String(seq)];
    const what = `the event that set it: seq ${seq}${ref ? `, ${ref.kind} at ${ref.source}:${ref.line}` : ""}`;
    return h("button", { class: "cause", "data-seq": seq, title: what, "aria-label": label === undefined ? what : undefined, onclick: () => this.cb.onGoTo(seq) }, label ?? `seq ${seq}`);
  }

  private roomsTable(s: ModelStateView, totals: StateAnswer["totals"], focusRoom: string | null): HTMLElement {
    const rooms = s.rooms;
    const rows = rooms.map((r) => [
      this.roomCell(r),
      this.cause(r.prefill.changedAt, poll(r.prefill.state)),
      this.cause(r.decode.changedAt, poll(r.decode.state)),
      `${r.prefill.chunksDone}/${r.prefill.chunksPosted}`,
      String(r.decode.chunksNotified),
      r.decode.auxReceived ? "yes" : "no",
      r.decode.pages.map(([lo, hi]) => `[${lo},${hi})`).join(" "),
      r.prefill.queue === null ? "" : String(r.prefill.queue),
    ]);
    const title = totals.roomsMatched === totals.rooms ? "Rooms" : `Rooms (${totals.roomsMatched} of ${totals.rooms} shown)`;
    const head = ["room", "prefill", "decode", "done/posted", "notified", "aux", "decode pages", "queue"];
    const el = section(title, totals.roomsMatched, table(head, rows, (i) => (rooms[i]!.room === focusRoom ? "focus" : ""), totals.roomsMatched));
    el.classList.add("rooms");
    return el;
  }

  /** The pages the server sent: the focus room's (owned or last written), else the first of all. */
  private pagesTable(s: ModelStateView, totals: StateAnswer["totals"], focusRoom: string | null): HTMLElement {
    const pages = s.pages;
    const rows = pages.map((p) => [
      `${p.rank} ${p.buffer}${p.layer >= 0 ? ` L${p.layer}` : ""} p${p.page}`,
      p.ownerRoom ?? "free",
      p.lastWriter ? this.cause(p.lastWriter.seq, `${p.lastWriter.room}${p.lastWriter.chunk !== null ? ` c${p.lastWriter.chunk}` : ""}`) : "—",
      this.cause(p.changedAt, h("span", { class: p.landed ? "landed" : "inflight" }, p.landed ? "landed" : "in flight")),
    ]);
    return section(focusRoom ? `Pages of room ${focusRoom}` : "Pages", totals.pagesMatched, table(["page", "owner", "last writer", ""], rows, undefined, totals.pagesMatched));
  }

  /** The pages dumped up to the cursor with the kernels' verdicts; each opens its bytes in the page panel. */
  private dumpedPagesTable(s: ModelStateView, focusRoom: string | null): HTMLElement {
    const pages = focusRoom ? s.dumpedPages.filter((d) => d.room === focusRoom) : s.dumpedPages;
    const rows = pages.map((d) => [
      d.room,
      `${d.rank} ${d.side} ${d.buffer} L${d.layer} p${d.page} pos ${d.pos}`,
      `${d.dtype} ${d.bytes} B${d.pageSized ? "" : " (not a whole page)"}`,
      d.checksum ? h("span", { class: d.checksum.agrees ? "checksum-ok" : "checksum-bad" }, d.checksum.agrees ? `${d.checksum.algo} agrees` : `${d.checksum.algo} ${d.checksum.stated} ≠ ${d.checksum.recomputed}`) : "",
      verdict(d),
      h("button", { class: "cause open-page", "data-seq": d.seq, title: `this dump's bytes (seq ${d.seq})`, onclick: () => this.cb.onPage(d) }, "bytes"),
    ]);
    const el = section(focusRoom ? `Dumped pages of room ${focusRoom}` : "Dumped pages", pages.length, table(["room", "page", "size", "checksum", "against prefill", ""], rows));
    el.classList.add("dumped-pages");
    return el;
  }

  /** Collectives in rank order; the model's culprits of each split group are marked, with the seq where it split. */
  private collectivesTable(s: ModelStateView): HTMLElement {
    const rows = sortCollectives(s.collectives);
    const marks = rows.map((c) => culpritMark(c, s.collectiveDivergences));
    const body = table(
      ["rank", "group", "op", "seq", "site", "", "changed"],
      rows.map((c, i) => [
        c.rank,
        c.group,
        c.op,
        marks[i]!.atSplit ? h("span", { class: "first-divergent", title: "the seq where the group's ranks part ways" }, String(c.seq)) : String(c.seq),
        c.site,
        c.inside ? "inside" : "",
        this.cause(c.changedAt),
      ]),
      (i) => (marks[i]!.culprit ? "divergent" : ""),
    );
    const notes = s.collectiveDivergences.map((d) => h("p", { class: "divergence" }, divergenceNote(d)));
    const el = section("Collectives", rows.length, h("div", {}, ...notes, body));
    el.classList.add("collectives");
    return el;
  }
}

type Cell = string | Node;

/** A table of the first STATE_ROWS rows; `total`: how many there are, when the server sent only the first. */
function table(head: string[], rows: Cell[][], rowClass?: (i: number) => string, total = rows.length): HTMLElement {
  if (!rows.length) return h("p", { class: "empty" }, "none");
  const shown = rows.slice(0, STATE_ROWS);
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: "state-table" },
      h("thead", {}, h("tr", {}, ...head.map((c) => h("th", {}, c)))),
      h("tbody", {}, ...shown.map((r, i) => h("tr", { class: rowClass?.(i) ?? "" }, ...r.map((c) => h("td", {}, c))))),
    ),
    total > shown.length ? h("p", { class: "more" }, `… ${total - shown.length} more`) : null,
  );
}

function section(title: string, count: number, content: HTMLElement): HTMLElement {
  return h("details", { class: "state-section", open: count > 0 }, h("summary", {}, title, h("span", { class: "count" }, String(count))), content);
}

/** A decode page against prefill's: equal, the rows that differ, or nothing to compare with yet. */
function verdict(d: DumpedPage): Cell {
  if (d.side === "prefill_store") return "";
  if (!d.pair) return h("span", { class: "unpaired" }, "no prefill page yet");
  if (d.pair.equal) return h("span", { class: "page-equal" }, "equal");
  const rows = d.pair.differingRows;
  return h("span", { class: "page-differs" }, rows.length ? `differs: rows ${rows[0]}..${rows[rows.length - 1]} (${rows.length})` : "differs");
}

function poll(state: number | null): HTMLElement {
  return h("span", { class: `kvpoll kvpoll-${state ?? "none"}`, "data-kvpoll": kvPollName(state) }, kvPollName(state));
}

function progress(done: number, total: number): HTMLElement {
  return h("span", { class: "progress" }, h("meter", { min: 0, max: Math.max(1, total), value: done }), ` ${done}/${total}`);
}
