// The omnibox's search over one ready incident: rooms by prefix, request ids
// and, when asked (it reads every stored line), raw text. Lanes, ranks and
// kinds are matched by the page itself, which has them all.

import { Router } from "express";
import { ridsContaining, roomsWithPrefix, sourceName, textContaining } from "../../ingest/store/viewQueries.js";
import { parseOr400 } from "./errors.js";
import { SearchQuery } from "./params.js";
import type { Registry } from "./registry.js";

const ROOMS = 8;
const RIDS = 8;
const TEXT_HITS = 40;

export function searchRoutes(registry: Registry, readyIncident: (id: unknown) => string): Router {
  const router = Router();
  router.get("/incidents/:id/search", (req, res) => {
    const id = readyIncident(req.params["id"]);
    const q = parseOr400(SearchQuery, req.query, "search");
    const db = registry.db(id);
    const rooms = /^\d{3,20}$/.test(q.q) ? roomsWithPrefix(db, q.q, ROOMS) : [];
    const rids = q.q.length >= 3 ? ridsContaining(db, q.q, RIDS) : [];
    const text = q.text ? textContaining(db, q.q, TEXT_HITS) : null;
    const names = new Map<number, string>();
    const sourceOf = (sid: number) => {
      if (!names.has(sid)) names.set(sid, sourceName(db, sid)?.path ?? `source ${sid}`);
      return names.get(sid)!;
    };
    res.json({
      rooms,
      rids,
      text: text && { complete: text.complete, hits: text.hits.map((h) => ({ seq: h.seq, source: sourceOf(h.sourceId), line: h.line, excerpt: h.excerpt })) },
    });
  });
  return router;
}
