// The omnibox's search over one ready incident: rooms by prefix, request ids
// and, when asked (it reads every stored line), raw text. Lanes, ranks and
// kinds are matched by the page itself, which has them all.

import { Router } from "express";
import { ridsContaining, roomsWithPrefix, textContaining } from "../../store/read/search.js";
import { sourceName } from "../../store/read/sources.js";
import { parseOr400 } from "./errors.js";
import { SearchQuery } from "./params.js";
import type { Registry } from "./registry.js";
import type { TimelineIndex } from "../../analyzer/timeline/timelineIndex.js";

const ROOMS = 8;
const RIDS = 8;
const TEXT_HITS = 40;

/** Kinds whose name holds the text, each with its first event in time and its count (one pass over the index). */
function kindsMatching(idx: TimelineIndex, text: string): { kind: string; firstSeq: number; events: number }[] {
  const needle = text.toLowerCase();
  const wanted = new Map<number, { kind: string; firstSeq: number; events: number }>();
  idx.kinds.forEach((k, id) => k.toLowerCase().includes(needle) && wanted.set(id, { kind: k, firstSeq: -1, events: 0 }));
  if (wanted.size === 0) return [];
  for (let i = 0; i < idx.kind.length; i++) {
    const hit = wanted.get(idx.kind[i]!);
    if (!hit) continue;
    if (hit.events++ === 0) hit.firstSeq = idx.seq[i]!;
  }
  return [...wanted.values()].sort((a, b) => b.events - a.events);
}

export function searchRoutes(registry: Registry, readyIncident: (id: unknown) => string): Router {
  const router = Router();
  router.get("/incidents/:id/search", async (req, res) => {
    const id = readyIncident(req.params["id"]);
    const q = parseOr400(SearchQuery, req.query, "search");
    const db = registry.db(id);
    const kinds = kindsMatching(await registry.timeline(id), q.q);
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
      kinds,
      text: text && { complete: text.complete, hits: text.hits.map((h) => ({ seq: h.seq, source: sourceOf(h.sourceId), line: h.line, excerpt: h.excerpt })) },
    });
  });
  return router;
}
