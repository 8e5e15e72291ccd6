// The REST API over one ready incident: /api/incidents/:id/...
// Every read goes through the registry's read-only connection; no route takes
// a file path from the client, and only the query route (routes-query.ts)
// takes SQL, read-only and time-limited.

import { Router, type Request } from "express";
import { eventBySeq } from "../../store/read/events.js";
import { listSources } from "../../store/read/sources.js";
import { sourceName } from "../../store/read/sources.js";
import { HttpError, parseOr400 } from "./errors.js";
import { CounterQuery, FlowQuery, IncidentParams, OverviewQuery, SeqParams, TextSliceQuery, WindowQuery } from "./params.js";
import { boundedAttrs, excerpt, MAX_SLICE, TEXT_EXCERPT } from "./excerpt.js";
import { positionOfSeq } from "../../analyzer/timeline/timelineIndex.js";
import { laneOfKind, toneOfKind } from "../../domain/kinds.js";
import { overview, queryWindow } from "./window-query.js";
import { queryCounters } from "./counter-tracks.js";
import { roomFlow } from "../../analyzer/timeline/flows.js";
import { readFindings } from "./findings.js";
import type { Registry } from "./registry.js";
import { timeTravelRoutes } from "./routes-timetravel.js";
import { queryRoutes } from "./routes-query.js";
import { searchRoutes } from "./routes-search.js";
import { pageRoutes } from "./routes-pages.js";
import { hypothesisRoutes } from "./routes-hypotheses.js";

function countKinds(idx: { kinds: string[]; kind: Uint16Array }): number[] {
  const counts = new Array<number>(idx.kinds.length).fill(0);
  for (let i = 0; i < idx.kind.length; i++) counts[idx.kind[i]!]!++;
  return counts;
}

/** The types of the spans an event defines (ui/view/spanTypes.ts), each once. */
function spanTypesOf(spans: { seq: Uint32Array; type: Uint8Array }, seq: number): number[] {
  const types = new Set<number>();
  for (let i = 0; i < spans.seq.length; i++) if (spans.seq[i] === seq) types.add(spans.type[i]!);
  return [...types].sort((a, b) => a - b);
}

/** The incident a path names; 404 when unknown, 409 while it is not ready. */
export function readyIncidentId(registry: Registry, raw: unknown): string {
  const { id } = parseOr400(IncidentParams, { id: raw }, "incident id");
  const record = registry.get(id);
  if (!record) throw new HttpError(404, `no incident '${id}'`);
  if (record.status !== "ready") {
    throw new HttpError(409, `incident '${id}' is ${record.status}${record.error ? `: ${record.error}` : ""}`);
  }
  return id;
}

export function incidentRoutes(registry: Registry): Router {
  const router = Router();
  router.use(timeTravelRoutes(registry, (raw) => readyIncidentId(registry, raw)));
  router.use(searchRoutes(registry, (raw) => readyIncidentId(registry, raw)));
  router.use(queryRoutes(registry, (raw) => readyIncidentId(registry, raw)));
  router.use(pageRoutes(registry, (raw) => readyIncidentId(registry, raw)));
  router.use(hypothesisRoutes(registry, (raw) => readyIncidentId(registry, raw)));

  const readyIncident = (req: Request): string => readyIncidentId(registry, req.params["id"]);

  router.get("/incidents/:id", (req, res) => {
    const { id } = parseOr400(IncidentParams, req.params, "incident id");
    const record = registry.get(id);
    if (!record) throw new HttpError(404, `no incident '${id}'`);
    res.json({ incident: record });
  });

  router.get("/incidents/:id/sources", (req, res) => {
    res.json({ sources: listSources(registry.db(readyIncident(req))) });
  });

  router.get("/incidents/:id/lanes", async (req, res) => {
    const idx = await registry.timeline(readyIncident(req));
    res.json({
      lanes: idx.lanes,
      kinds: idx.kinds,
      kindComponents: idx.kinds.map((k) => laneOfKind(k)),
      kindTones: idx.kinds.map((k) => toneOfKind(k, null)),
      kindCounts: countKinds(idx),
      labels: idx.labels,
      counterTracks: idx.counters.tracks.map(({ lane, series, metric, rate }) => ({ lane, series, metric, rate })),
      firstTsUs: idx.firstTsUs,
      lastTsUs: idx.lastTsUs,
      unknownTsUs: idx.unknownTsUs,
      datedFromUs: firstDated(idx),
      events: idx.ts.length,
    });
  });

  router.get("/incidents/:id/events", async (req, res) => {
    const id = readyIncident(req);
    const q = parseOr400(WindowQuery, req.query, "window");
    res.json(
      queryWindow(await registry.timeline(id), {
        fromUs: q.from,
        toUs: q.to,
        buckets: q.buckets,
        maxEvents: q.max,
        ...(q.hide && { hideKinds: q.hide }),
        ...(q.hideSpans && { hideSpans: q.hideSpans }),
      }),
    );
  });

  router.get("/incidents/:id/counters", async (req, res) => {
    const id = readyIncident(req);
    const q = parseOr400(CounterQuery, req.query, "counter window");
    res.json(queryCounters((await registry.timeline(id)).counters, { fromUs: q.from, toUs: q.to, px: q.px, ...(q.lanes && { lanes: q.lanes }) }));
  });

  router.get("/incidents/:id/overview", async (req, res) => {
    const id = readyIncident(req);
    const q = parseOr400(OverviewQuery, req.query, "overview");
    res.json(overview(await registry.timeline(id), q.buckets));
  });

  router.get("/incidents/:id/events/:seq", async (req, res) => {
    const id = readyIncident(req);
    const { seq } = parseOr400(SeqParams, req.params, "event");
    const db = registry.db(id);
    const ev = eventBySeq(db, seq);
    if (!ev) throw new HttpError(404, `no event ${seq} in incident '${id}'`);
    const source = sourceName(db, ev.sourceId);
    const idx = await registry.timeline(id);
    const pos = positionOfSeq(idx, seq);
    const { attrs, cut } = boundedAttrs(ev.attrs);
    res.json({
      event: { ...ev, text: excerpt(ev.text, TEXT_EXCERPT), attrs },
      textLength: ev.text.length,
      attrsCut: cut,
      source: source ?? null,
      lane: pos === undefined ? null : idx.lane[pos],
      spanTypes: spanTypesOf(idx.spans, seq),
    });
  });

  // The rest of a long record, a slice at a time.
  router.get("/incidents/:id/events/:seq/text", (req, res) => {
    const id = readyIncident(req);
    const { seq } = parseOr400(SeqParams, req.params, "event");
    const q = parseOr400(TextSliceQuery, req.query, "text slice");
    const ev = eventBySeq(registry.db(id), seq);
    if (!ev) throw new HttpError(404, `no event ${seq} in incident '${id}'`);
    res.json({ from: q.from, text: ev.text.slice(q.from, q.from + Math.min(q.length, MAX_SLICE)), textLength: ev.text.length });
  });

  // Also while the job indexes the timeline, once it has stored the findings: the page shows the suspects first.
  router.get("/incidents/:id/findings", async (req, res) => {
    const { id } = parseOr400(IncidentParams, req.params, "incident id");
    const record = registry.get(id);
    if (record?.status === "analyzing" && record.findingsReady) {
      res.json(registry.withEarlyReader(id, (db) => readFindings(db, null)));
      return;
    }
    const ready = readyIncident(req);
    res.json(readFindings(registry.db(ready), await registry.timeline(ready)));
  });

  router.get("/incidents/:id/flow", async (req, res) => {
    const id = readyIncident(req);
    const { room } = parseOr400(FlowQuery, req.query, "flow query");
    const idx = await registry.timeline(id);
    const flow = roomFlow(registry.db(id), room, idx.landings);
    const laneOf = (seq: number) => {
      const pos = positionOfSeq(idx, seq);
      return pos === undefined ? null : idx.lane[pos]!;
    };
    res.json({ ...flow, events: flow.events.map((e) => ({ ...e, lane: laneOf(e.seq) })) });
  });

  return router;
}

/** The first dated record's time: the records of unknown time come first, all at the index's unknownTsUs. */
function firstDated(idx: { ts: Float64Array; unknownTsUs: number | null; firstTsUs: number | null }): number | null {
  if (idx.unknownTsUs === null) return idx.firstTsUs;
  let i = 0;
  while (i < idx.ts.length && idx.ts[i] === idx.unknownTsUs) i++;
  return i < idx.ts.length ? idx.ts[i]! : null;
}
