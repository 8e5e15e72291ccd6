// The view in the address bar: incident, time window, cursor, selection,
// finding and open rows, so that a copied link reopens the same view.

export type StepScope = "any" | "room" | "rank" | "page";

export interface ViewState {
  incident?: string;
  from?: number;
  to?: number;
  cursor?: number;
  sel?: number;
  finding?: string;
  /** Row keys flipped from their default (see rows.ts). */
  rows: string[];
  by: StepScope;
}

const int = (v: string | null): number | undefined => {
  if (v === null || !/^\d+$/.test(v)) return undefined;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : undefined;
};

export function readUrl(search = location.search): ViewState {
  const q = new URLSearchParams(search);
  const by = q.get("by");
  const state: ViewState = {
    rows: q.getAll("row"),
    by: by === "room" || by === "rank" || by === "page" ? by : "any",
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
  if (state.by !== "any") q.set("by", state.by);
  for (const key of state.rows) q.append("row", key);
  const s = q.toString();
  return s ? `?${s}` : "";
}

export function writeUrl(state: ViewState): void {
  const search = toSearch(state);
  if (search !== location.search) history.replaceState(null, "", `${location.pathname}${search}`);
}
