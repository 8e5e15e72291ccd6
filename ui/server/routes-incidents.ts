// The incident list and uploads: GET /api/incidents, POST /api/incidents.

import { Router } from "express";
import { join } from "node:path";
import { rmSync } from "node:fs";
import { checkContentLength, placeFiles, receiveFiles, type UploadLimits } from "./upload.js";
import { parseOr400 } from "./errors.js";
import { UploadQuery } from "./params.js";
import type { Registry } from "./registry.js";
import type { JobQueue } from "./jobs.js";

export function incidentListRoutes(registry: Registry, jobs: JobQueue, limits: UploadLimits): Router {
  const router = Router();

  router.get("/incidents", (_req, res) => {
    res.json({ incidents: registry.list() });
  });

  router.post("/incidents", async (req, res) => {
    const query = parseOr400(UploadQuery, req.query, "query");
    checkContentLength(req, limits);
    const record = registry.create(query.name ?? "upload");
    try {
      const staging = join(registry.dirOf(record.id), "staging");
      const files = await receiveFiles(req, res, staging, limits);
      if (!query.name && files[0]) registry.update(record.id, { name: files[0].originalname });
      const received = await placeFiles(files, registry.inputDirOf(record.id), limits);
      rmSync(staging, { recursive: true, force: true });
      registry.update(record.id, { inputFiles: received.files, inputBytes: received.bytes });
      jobs.enqueue(record.id);
      res.status(202).json({ incident: registry.get(record.id) });
    } catch (err) {
      registry.remove(record.id);
      throw err;
    }
  });

  return router;
}
