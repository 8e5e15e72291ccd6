// A dumped page at the cursor (issue 15): GET /api/incidents/:id/pages?seq=&page=[&room=&layer=]
// answers the page view of analyzer/pages/pageView.ts — the latest dump of
// the page at or before seq, its rows in hex and decoded beside prefill's,
// the differing rows, the checksum and the diagnosis.

import { Router } from "express";
import { z } from "zod";
import type { IncidentDb } from "../../store/db.js";
import { pageViewAt } from "../../analyzer/pages/pageView.js";
import { Evidence } from "../../analyzer/rules/evidence.js";
import { HttpError, parseOr400 } from "./errors.js";
import type { Registry } from "./registry.js";

const PageQuery = z
  .object({
    seq: z.coerce.number().int().min(0).max(0xfffffffe),
    page: z.coerce.number().int().min(0).max(0xfffffffe),
    room: z.string().regex(/^\d{1,20}$/, "a room is a decimal integer").optional(),
    layer: z.coerce.number().int().min(0).max(0xffff).optional(),
  })
  .strict();

/** One Evidence per open database: its page replay is computed once, on the first request. */
const evidenceOf = new WeakMap<IncidentDb, Evidence>();

export function pageRoutes(registry: Registry, readyIncident: (id: unknown) => string): Router {
  const router = Router();
  router.get("/incidents/:id/pages", (req, res) => {
    const id = readyIncident(req.params["id"]);
    const q = parseOr400(PageQuery, req.query, "page query");
    const db = registry.db(id);
    let evidence = evidenceOf.get(db);
    if (!evidence) {
      evidence = new Evidence(db);
      evidenceOf.set(db, evidence);
    }
    const view = pageViewAt(evidence, { seq: q.seq, page: q.page, ...(q.room !== undefined && { room: q.room }), ...(q.layer !== undefined && { layer: q.layer }) });
    if (!view) throw new HttpError(404, `no dump of page ${q.page} at or before seq ${q.seq}`);
    res.json({ page: view });
  });
  return router;
}
