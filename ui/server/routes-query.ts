// GET /api/incidents/:id/query?sql=…: the `kvrewind query` of the server — one
// read-only statement over the incident's events and tables, with a time and
// a row limit (store/query/). The only route that takes SQL from the
// client; it runs on its own read-only connection in a child process.

import { Router } from "express";
import { formatJson } from "../../store/query/queryFormat.js";
import { queryWithLimit } from "../../store/query/queryWithLimit.js";
import { QueryError } from "../../store/query/userQuery.js";
import { HttpError, parseOr400 } from "./errors.js";
import { SqlQuery } from "./params.js";
import type { Registry } from "./registry.js";

export function queryRoutes(registry: Registry, readyIncident: (id: unknown) => string): Router {
  const router = Router();
  router.get("/incidents/:id/query", async (req, res) => {
    const id = readyIncident(req.params["id"]);
    const q = parseOr400(SqlQuery, req.query, "query");
    try {
      const result = await queryWithLimit(registry.dbPathOf(id), q.sql, { timeoutMs: q.timeoutMs, maxRows: q.maxRows });
      // lossless-json writes 64-bit integers as exact JSON numbers.
      res.type("application/json").send(formatJson(result));
    } catch (e) {
      if (e instanceof QueryError) throw new HttpError(400, e.message);
      throw e;
    }
  });
  return router;
}
