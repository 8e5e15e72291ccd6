// The incident list and uploads: GET /api/incidents, POST /api/incidents.

import { Router } from "express";
import { basename, join } from "node:path";
import { rmSync } from "node:fs";
import { checkContentLength, receiveFiles, type UploadLimits } from "./upload.js";
import { placeFiles } from "./bundle.js";
import { HttpError, parseOr400 } from "./errors.js";
import { IncidentParams, UploadQuery } from "./params.js";
import { slug, type Registry } from "./registry.js";
import type { JobQueue } from "./jobs.js";

export function incidentListRoutes(registry: Registry, jobs: JobQueue, limits: UploadLimits): Router {
  const router = Router();

  router.get("/incidents", (_req, res) => {
    res.json({ incidents: registry.list() });
  });

  // The upload lands in a staging folder of its own; only a complete, checked
  // upload becomes an incident, so a refused one leaves nothing behind.
  router.post("/incidents", async (req, res) => {
    const query = parseOr400(UploadQuery, req.query, "query");
    checkContentLength(req, limits);
    const staging = registry.stagingDir();
    try {
      const files = await receiveFiles(req, res, join(staging, "parts"), limits);
      const received = await placeFiles(files, join(staging, "input"), limits);
      const name = query.name ?? basename(files[0]!.originalname);
      const record = registry.adopt(name, join(staging, "input"), received);
      jobs.enqueue(record.id);
      // A name taken already gets a suffixed id: the answer says whose name it shares.
      const sharesName = record.id !== slug(name) ? { sharesNameWith: slug(name) } : {};
      res.status(202).json({ incident: registry.get(record.id), ...sharesName });
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  });

  router.delete("/incidents/:id", async (req, res) => {
    const { id } = parseOr400(IncidentParams, req.params, "incident id");
    if (!registry.get(id)) throw new HttpError(404, `no incident '${id}'`);
    await jobs.cancel(id);
    registry.remove(id);
    res.json({ deleted: id });
  });

  // Ingest (a no-op for inputs already in) and analyze again: after an upgrade, or a failure.
  router.post("/incidents/:id/reanalyze", (req, res) => {
    const { id } = parseOr400(IncidentParams, req.params, "incident id");
    const record = registry.get(id);
    if (!record) throw new HttpError(404, `no incident '${id}'`);
    if (record.status !== "ready" && record.status !== "failed") throw new HttpError(409, `incident '${id}' is ${record.status}: wait until it is ready or failed`);
    jobs.enqueue(id);
    res.status(202).json({ incident: registry.get(id) });
  });

  return router;
}
