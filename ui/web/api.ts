// Fetching from the server. Errors carry the server's message (it never sends
// a stack trace), so the page can show them as they are.

import type {
  CountersAnswer,
  EventAnswer,
  FindingsAnswer,
  HypothesisCheck,
  HypothesisLedger,
  IncidentRecord,
  LanesAnswer,
  PageAnswer,
  OverviewAnswer,
  RoomFlow,
  SearchAnswer,
  StateAnswer,
  StateRequest,
  StepAnswer,
  TextSlice,
  WindowColumns,
} from "./types.js";
import type { SourceRow } from "../../store/read/sources.js";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function getJson<T>(path: string, params: Record<string, string | number | undefined> = {}, signal?: AbortSignal): Promise<T> {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) qs.set(k, String(v));
  const url = qs.size ? `${path}?${qs}` : path;
  const res = await fetch(url, signal ? { signal } : {});
  const body = (await res.json().catch(() => ({ error: `${res.status} ${res.statusText}` }))) as T & { error?: string };
  if (!res.ok) throw new ApiError(res.status, body.error ?? `${res.status} ${res.statusText}`);
  return body;
}

const inc = (id: string) => `/api/incidents/${encodeURIComponent(id)}`;

async function send<T>(method: "POST" | "DELETE", path: string): Promise<T> {
  const res = await fetch(path, { method });
  const body = (await res.json().catch(() => ({ error: `${res.status} ${res.statusText}` }))) as T & { error?: string };
  if (!res.ok) throw new ApiError(res.status, body.error ?? `${res.status} ${res.statusText}`);
  return body;
}

export const api = {
  incidents: () => getJson<{ incidents: IncidentRecord[] }>("/api/incidents").then((r) => r.incidents),
  deleteIncident: (id: string) => send<{ deleted: string }>("DELETE", inc(id)),
  reanalyze: (id: string) => send<{ incident: IncidentRecord }>("POST", `${inc(id)}/reanalyze`),
  incident: (id: string) => getJson<{ incident: IncidentRecord }>(inc(id)).then((r) => r.incident),
  lanes: (id: string) => getJson<LanesAnswer>(`${inc(id)}/lanes`),
  sources: (id: string) => getJson<{ sources: SourceRow[] }>(`${inc(id)}/sources`).then((r) => r.sources),
  window: (id: string, w: { from: number; to: number; buckets: number; max: number; hide: number[]; hideSpans: number[] }, signal?: AbortSignal) =>
    getJson<WindowColumns>(
      `${inc(id)}/events`,
      {
        from: Math.floor(w.from),
        to: Math.ceil(w.to),
        buckets: w.buckets,
        max: w.max,
        hide: w.hide.length ? w.hide.join(",") : undefined,
        hideSpans: w.hideSpans.length ? w.hideSpans.join(",") : undefined,
      },
      signal,
    ),
  counters: (id: string, w: { from: number; to: number; px: number; lanes: number[] }, signal?: AbortSignal) =>
    getJson<CountersAnswer>(`${inc(id)}/counters`, { from: Math.floor(w.from), to: Math.ceil(w.to), px: w.px, lanes: w.lanes.join(",") }, signal),
  overview: (id: string, buckets: number) => getJson<OverviewAnswer>(`${inc(id)}/overview`, { buckets }),
  search: (id: string, q: string, text: boolean, signal?: AbortSignal) => getJson<SearchAnswer>(`${inc(id)}/search`, { q, text: text ? 1 : undefined }, signal),
  event: (id: string, seq: number) => getJson<EventAnswer>(`${inc(id)}/events/${seq}`),
  eventText: (id: string, seq: number, from: number, length: number) => getJson<TextSlice>(`${inc(id)}/events/${seq}/text`, { from, length }),
  findings: (id: string) => getJson<FindingsAnswer>(`${inc(id)}/findings`),
  hypotheses: (id: string) => getJson<HypothesisLedger>(`${inc(id)}/hypotheses`),
  check: (id: string, hypothesis: string) => getJson<HypothesisCheck>(`${inc(id)}/check`, { h: hypothesis }),
  flow: (id: string, room: string) => getJson<RoomFlow>(`${inc(id)}/flow`, { room }),
  state: (id: string, at: { seq: number } | { ts: number }, sel: StateRequest, signal?: AbortSignal) =>
    getJson<StateAnswer>(
      `${inc(id)}/state`,
      {
        ...("seq" in at ? { seq: at.seq } : { ts: Math.floor(at.ts) }),
        limit: sel.limit,
        text: sel.text || undefined,
        finding: sel.finding,
        notSuccess: sel.notSuccess ? 1 : undefined,
        focus: sel.focus,
      },
      signal,
    ),
  page: (id: string, q: { seq: number; page: number; room: string | null; layer: number | null }) =>
    getJson<PageAnswer>(`${inc(id)}/pages`, { seq: q.seq, page: q.page, room: q.room ?? undefined, layer: q.layer ?? undefined }),
  step: (id: string, seq: number, dir: "next" | "prev", by: "any" | "room" | "rank" | "page", page: number | null = null) =>
    getJson<StepAnswer>(`${inc(id)}/step`, { seq, dir, by, page: page ?? undefined }),
};

/** What an upload made: the new incident, and the incident whose name it shares when its id had to differ. */
export interface Uploaded {
  incident: IncidentRecord;
  sharesNameWith?: string;
}

/** Uploads files (or one archive) with progress; resolves with the new incident. */
export function upload(
  files: { file: File; name: string }[],
  incidentName: string,
  onProgress: (sent: number, total: number) => void,
): Promise<Uploaded> {
  const form = new FormData();
  for (const { file, name } of files) form.append("files", file, name);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `/api/incidents?${new URLSearchParams({ name: incidentName })}`);
    xhr.responseType = "json";
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.total);
    xhr.onload = () => {
      const body = xhr.response as { incident?: IncidentRecord; sharesNameWith?: string; error?: string } | null;
      if (xhr.status === 202 && body?.incident) resolve({ incident: body.incident, ...(body.sharesNameWith && { sharesNameWith: body.sharesNameWith }) });
      else reject(new ApiError(xhr.status, body?.error ?? `upload failed (${xhr.status})`));
    };
    xhr.onerror = () => reject(new ApiError(0, "upload failed: the server could not be reached"));
    xhr.send(form);
  });
}
