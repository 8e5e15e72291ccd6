// The express application: the JSON API under /api and the bundled page.

import express from "express";
import { existsSync } from "node:fs";
import { accessGuard, type AccessPolicy } from "./access.js";
import { errorHandler, HttpError } from "./errors.js";
import { incidentListRoutes } from "./routes-incidents.js";
import { incidentRoutes } from "./routes-incident.js";
import type { Registry } from "./registry.js";
import type { JobQueue } from "./jobs.js";
import type { UploadLimits } from "./upload.js";
import { packageFile } from "../../store/packageFiles.js";

/** The built page (npm run build:web). */
export const WEB_DIR = packageFile("dist/web");

export interface AppDeps {
  /** Who may use the server; undefined until it listens (its port is known then). */
  access: () => AccessPolicy | undefined;
  registry: Registry;
  jobs: JobQueue;
  limits: UploadLimits;
  log: (line: string) => void;
}

export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("query parser", "simple");
  app.use(accessGuard(deps.access));
  app.use((_req, res, next) => {
    res.set("X-Content-Type-Options", "nosniff");
    // No page may frame this one (clickjacking of the upload and re-analyze buttons), nor post its forms elsewhere.
    res.set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'");
    next();
  });

  const api = express.Router();
  api.use(incidentListRoutes(deps.registry, deps.jobs, deps.limits));
  api.use(incidentRoutes(deps.registry));
  api.use(() => {
    throw new HttpError(404, "no such API route");
  });
  app.use("/api", api);

  if (existsSync(WEB_DIR)) {
    app.use(express.static(WEB_DIR, { index: "index.html" }));
  }
  app.use(() => {
    throw new HttpError(404, "not found");
  });
  app.use(errorHandler(deps.limits, deps.log, deps.registry.dataDir));
  return app;
}
