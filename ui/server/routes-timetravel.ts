// Time travel over one ready incident: the model state at a seq or a time
// (the replay's stateAt, with the event behind each piece of state), and the
// previous/next event of the same room, rank or page.

import { Router } from "express";
import { provenance, seqAt, stateAt } from "../../analyzer/replay/timeTravel.js";
import { scopeOfEvent, step, type StepScope } from "../../analyzer/replay/navigation.js";
import { eventRef } from "../../analyzer/replay/eventRefs.js";
import { selectState } from "../../analyzer/replay/stateSelection.js";
import { findingRooms } from "./findings.js";
import { HttpError, parseOr400 } from "./errors.js";
import { StateQuery, StepQuery } from "./params.js";
import type { Registry } from "./registry.js";

export function timeTravelRoutes(registry: Registry, readyIncident: (id: unknown) => string): Router {
  const router = Router();

  router.get("/incidents/:id/state", async (req, res) => {
    const id = readyIncident(req.params["id"]);
    const q = parseOr400(StateQuery, req.query, "state query");
    const db = registry.db(id);
    const seq = seqAt(db, q.seq !== undefined ? { seq: q.seq } : { tsUs: q.ts! });
    if (seq === null) throw new HttpError(404, q.seq !== undefined ? `no event at or before seq ${q.seq}` : `no event at or before ${q.ts}`);
    const among = q.finding === undefined ? undefined : await roomsOf(id, q.finding);
    const whole = stateAt(db, { seq }, q.room === undefined ? {} : { room: q.room });
    const { view, totals } = selectState(whole, {
      ...(q.text && { text: q.text }),
      ...(among && { among }),
      notSuccess: q.notSuccess === "1",
      ...(q.focus && { focus: q.focus }),
      ...(q.limit && { limit: q.limit }),
    });
    const at = eventRef(db, seq)!;
    const changes: Record<number, { source: string; line: number; kind: string }> = {};
    for (const [s, ref] of provenance(db, view)) changes[s] = { source: ref.source, line: ref.line, kind: ref.kind };
    res.json({ atSeq: seq, tsUs: at.tsUs, kind: at.kind, state: view, totals, changes });
  });

  async function roomsOf(id: string, finding: string): Promise<Set<string>> {
    const rooms = findingRooms(registry.db(id), await registry.timeline(id), finding);
    if (rooms === null) throw new HttpError(404, `no finding '${finding}' in incident '${id}'`);
    return new Set(rooms);
  }

  router.get("/incidents/:id/step", (req, res) => {
    const id = readyIncident(req.params["id"]);
    const q = parseOr400(StepQuery, req.query, "step query");
    const db = registry.db(id);
    const by: StepScope["by"] = q.by === "any" ? "event" : q.by;
    if (!eventRef(db, q.seq)) throw new HttpError(404, `no event ${q.seq} in incident '${id}'`);
    const named = scopeOfEvent(db, q.seq, by);
    if (!named) throw new HttpError(400, `event ${q.seq} names no ${q.by}`);
    // A page's history is one page's: an event touching a range would let the next step drift to its other pages.
    const scope = named.by === "page" && q.page !== undefined ? { ...named, pageLo: q.page, pageHi: q.page + 1 } : named;
    const next = step(db, q.seq, q.dir, scope);
    res.json({ seq: next?.seq ?? null, tsUs: next?.tsUs ?? null });
  });

  return router;
}
