// The view in the address bar: incident, time window, cursor, selection,
// finding, hypothesis, open rows, the lane and kind filters, folded gaps, names on marks
// and the state panel's room filters, so that a copied link reopens the same
// view.

export type StepScope = "any" | "room" | "rank" | "page";

export interface ViewState {
  incident?: string;
  from?: number;
  to?: number;
  cursor?: number;
  sel?: number;
  finding?: string;
  /** The hypothesis in the box (docs/hypotheses.md): a property or a library name. */
  hyp?: string;
  /** Row keys flipped from their default (see rows.ts). */
  rows: string[];
  /** Rank keys pinned to the top, in pin order (see rows.ts). */
  pins: string[];
  by: StepScope;
  /** Kind names and span types hidden; roles shown (empty: all); lane text. */
  hideKinds: string[];
  hideSpans: number[];
  roles: string[];
  lane: string;
  /** Empty stretches folded. */
  folds: boolean;
  /** Names drawn beside marks. */
  labels: boolean;
  /** State panel: room text, rooms of the finding only, rooms not at Success only. */
  roomText: string;
  inFinding: boolean;
  notSuccess: boolean;
}

const int = (v: string | null): number | undefined => {
  if (v === null || !/^\d+$/.test(v)) return undefined;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : undefined;
};

const list = (v: string | null): string[] => (v ? v.split(",").filter(Boolean) : []);

export function readUrl(search = location.search): ViewState {
  const q = new URLSearchParams(search);
  const by = q.get("by");
  const state: ViewState = {
    rows: q.getAll("row"),
    pins: q.getAll("pin"),
    by: by === "room" || by === "rank" || by === "page" ? by : "any",
    hideKinds: list(q.get("hide")),
    hideSpans: list(q.get("nospan")).map(Number).filter((n) => Number.isInteger(n) && n >= 0),
    roles: list(q.get("roles")),
    lane: q.get("lane") ?? "",
    folds: q.get("folds") === "1",
    labels: q.get("labels") !== "0",
    roomText: q.get("rooms") ?? "",
    inFinding: q.get("inFinding") === "1",
    notSuccess: q.get("notSuccess") === "1",
  };
  const incident = q.get("incident");
  if (incident) state.incident = incident;
  const from = int(q.get("from"));
  const to = int(q.get("to"));
  if (from !== undefined && to !== undefined && to > from) {
    state.from = from;
    state.to = to;
  }
  const cursor = int(q.get("cursor"));
  if (cursor !== undefined) state.cursor = cursor;
  const sel = int(q.get("sel"));
  if (sel !== undefined) state.sel = sel;
  const finding = q.get("finding");
  if (finding) state.finding = finding;
  const hyp = q.get("hyp");
  if (hyp) state.hyp = hyp;
  return state;
}

export function toSearch(state: ViewState): string {
  const q = new URLSearchParams();
  if (state.incident) q.set("incident", state.incident);
  if (state.from !== undefined && state.to !== undefined) {
    q.set("from", String(Math.floor(state.from)));
    q.set("to", String(Math.ceil(state.to)));
  }
  if (state.cursor !== undefined) q.set("cursor", String(state.cursor));
  if (state.sel !== undefined) q.set("sel", String(state.sel));
  if (state.finding) q.set("finding", state.finding);
  if (state.hyp) q.set("hyp", state.hyp);
  if (state.by !== "any") q.set("by", state.by);
  if (state.hideKinds.length) q.set("hide", state.hideKinds.join(","));
  if (state.hideSpans.length) q.set("nospan", state.hideSpans.join(","));
  if (state.roles.length) q.set("roles", state.roles.join(","));
  if (state.lane) q.set("lane", state.lane);
  if (state.folds) q.set("folds", "1");
  if (!state.labels) q.set("labels", "0");
  if (state.roomText) q.set("rooms", state.roomText);
  if (state.inFinding) q.set("inFinding", "1");
  if (state.notSuccess) q.set("notSuccess", "1");
  for (const key of state.rows) q.append("row", key);
  for (const key of state.pins) q.append("pin", key);
  const s = q.toString();
  return s ? `?${s}` : "";
}

export function writeUrl(state: ViewState): void {
  const search = toSearch(state);
  if (search !== location.search) history.replaceState(null, "", `${location.pathname}${search}`);
}
