// Starting and stopping the server: a data directory, a job queue, and the app
// listening on 127.0.0.1 unless told otherwise.

import type { AddressInfo } from "node:net";
import { networkInterfaces } from "node:os";
import type { Server } from "node:http";
import { IncidentSchemaError } from "../../store/db.js";
import { accessPolicy, type AccessPolicy } from "./access.js";
import { createApp } from "./app.js";
import { JobQueue } from "./jobs.js";
import { Registry } from "./registry.js";
import { DEFAULT_UPLOAD_LIMITS, type UploadLimits } from "./upload.js";

export interface ServeOptions {
  dataDir: string;
  /** 0 picks a free port. */
  port: number;
  host?: string;
  /** Names besides the bound address that requests may carry as Host (--allow-host). */
  allowHosts?: readonly string[];
  /** The access token to require; a non-loopback bind without one gets a random one. */
  token?: string;
  limits?: Partial<UploadLimits>;
  log?: (line: string) => void;
}

export interface RunningServer {
  url: string;
  /** The access token when one is required (every non-loopback bind), else null. */
  token: string | null;
  /** The address to open in a browser: `url`, with the token when there is one. */
  openUrl: string;
  registry: Registry;
  jobs: JobQueue;
  close(): Promise<void>;
}

export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const registry = new Registry(opts.dataDir);
  const limits = { ...DEFAULT_UPLOAD_LIMITS, ...opts.limits };
  const jobs = new JobQueue(registry, log, limits.maxExtractedBytes);
  // Work that a previous server left unfinished is picked up again: ingest is
  // idempotent, so a half-ingested incident simply continues. An incident
  // file of another schema is rebuilt from the incident's own input folder;
  // a SQLite file that is not an incident is left as it is, and the incident
  // failed with the reason.
  for (const record of registry.list()) {
    if (record.status === "receiving") registry.remove(record.id);
    else if (record.status === "failed") continue;
    else {
      const state = registry.databaseState(record.id);
      if (state === "foreign") {
        // The record's error reaches the page: it names the file, not where the server keeps it.
        log(`incident ${record.id}: ${new IncidentSchemaError(registry.dbPathOf(record.id), null).message}`);
        registry.update(record.id, { status: "failed", error: new IncidentSchemaError("incident.db", null).message });
      } else if (state === "other-schema") {
        log(`incident ${record.id}: its database was written under another schema; rebuilding it from its input files`);
        registry.discardDatabase(record.id);
        jobs.enqueue(record.id);
      } else if (record.status !== "ready") jobs.enqueue(record.id);
    }
  }
  warmIndexes(registry, log);
  let access: AccessPolicy | undefined;
  const app = createApp({ access: () => access, registry, jobs, limits, log });
  const host = opts.host ?? "127.0.0.1";
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(opts.port, host, (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  const { port } = server.address() as AddressInfo;
  access = accessPolicy({ host, port, allowHosts: opts.allowHosts ?? [], ...(opts.token !== undefined && { token: opts.token }) });
  const reachable = reachableName(host);
  const url = `http://${reachable.includes(":") ? `[${reachable}]` : reachable}:${port}/`;
  return {
    url,
    token: access.token,
    openUrl: access.token === null ? url : `${url}?token=${access.token}`,
    registry,
    jobs,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await jobs.stop();
      registry.closeAll();
    },
  };
}

/** The bound address, or for a wildcard bind an address of this machine that others can reach it by. */
function reachableName(host: string): string {
  if (host !== "0.0.0.0" && host !== "::") return host;
  const external = Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .find((a) => a.family === "IPv4" && !a.internal);
  return external?.address ?? "127.0.0.1";
}

/** Loads (or builds) the timeline index of each ready incident, one at a time, so first views are fast. */
function warmIndexes(registry: Registry, log: (line: string) => void): void {
  const ready = registry.list().filter((r) => r.status === "ready");
  void ready.reduce(
    // Opening the database may throw as well as the build reject: both are logged, and the next incident warms.
    (chain, r) => chain.then(() => registry.timeline(r.id)).then(() => undefined, (err: Error) => log(`incident ${r.id}: ${err.message}`)),
    Promise.resolve(),
  );
}
