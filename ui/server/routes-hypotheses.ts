// Hypotheses over one ready incident (docs/hypotheses.md): the library with
// each named hypothesis's verdict (the ledger stored with the analysis, else
// computed once per incident),
// and a check of one hypothesis — a library name or a property written in
// the page's box — with its witnesses placed on the timeline.

import { Router } from "express";
import { z } from "zod";
import type { Hypothesis } from "../../analyzer/hypotheses/ast.js";
import { libraryHypothesis, loadLibrary, parseExpression } from "../../analyzer/hypotheses/library.js";
import { checkHypotheses } from "../../analyzer/hypotheses/run.js";
import { loadAnalysis } from "../../analyzer/rules/index.js";
import type { HypothesisVerdict } from "../../analyzer/hypotheses/verdict.js";
import { HttpError, parseOr400 } from "./errors.js";
import type { Registry } from "./registry.js";
import { positionOfSeq, type TimelineIndex } from "../../analyzer/timeline/timelineIndex.js";

const CheckQuery = z.object({ h: z.string().trim().min(1).max(2000) });

/** A witness pair's subject where the timeline draws it. */
export interface PlacedViolation {
  seq: number;
  tsUs: number;
  lane: number;
  why: string;
}

export function hypothesisRoutes(registry: Registry, readyIncident: (id: unknown) => string): Router {
  const router = Router();
  const ledgers = new Map<string, HypothesisVerdict[]>();

  router.get("/incidents/:id/hypotheses", (req, res) => {
    const id = readyIncident(req.params["id"]);
    const library = loadLibrary();
    let ledger = ledgers.get(id);
    if (!ledger) {
      // The ledger stored with the incident's analysis reads the findings' decisions for the checks they share (analyzer/rules/ledger.ts).
      ledger = loadAnalysis(registry.db(id))?.hypotheses ?? checkHypotheses(registry.db(id), library).verdicts;
      ledgers.set(id, ledger);
    }
    res.json({ library: library.map((h) => ({ name: h.name, statement: h.statement ?? "" })), ledger });
  });

  router.get("/incidents/:id/check", async (req, res) => {
    const id = readyIncident(req.params["id"]);
    const { h } = parseOr400(CheckQuery, req.query, "check");
    const verdict = checkHypotheses(registry.db(id), [hypothesisOf(h)]).verdicts[0]!;
    res.json({ verdict, placed: placeViolations(await registry.timeline(id), verdict) });
  });
  return router;
}

/** A library name, else the text of a property; a mistake is a 400 with its position. */
function hypothesisOf(text: string): Hypothesis {
  const named = /^[a-z0-9-]+$/.test(text) ? libraryHypothesis(text) : undefined;
  if (named) return named;
  try {
    return parseExpression(text);
  } catch (err) {
    throw new HttpError(400, (err as Error).message);
  }
}

function placeViolations(idx: TimelineIndex, v: HypothesisVerdict): PlacedViolation[] {
  return v.witnesses.flatMap((w) => {
    const pos = positionOfSeq(idx, w.subject.seq);
    return pos === undefined ? [] : [{ seq: w.subject.seq, tsUs: idx.ts[pos]!, lane: idx.lane[pos]!, why: w.why }];
  });
}
