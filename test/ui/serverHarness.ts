// A real server on an ephemeral port over a fresh data directory, and real
// tar.gz archives built in memory, for the API tests.

import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import tar from "tar-stream";
import { startServer, type RunningServer } from "../../ui/server/server.js";
import type { UploadLimits } from "../../ui/server/upload.js";
import { scratchDir } from "../scratchDir.js";

export interface TestServer extends RunningServer {
  dataDir: string;
  logs: string[];
}

export async function startTestServer(
  opts: { limits?: Partial<UploadLimits>; dataDir?: string; allowHosts?: string[]; token?: string } = {},
): Promise<TestServer> {
  const dataDir = opts.dataDir ?? scratchDir("kvrewind-ui-");
  const logs: string[] = [];
  const server = await startServer({
    dataDir,
    port: 0,
    log: (l) => logs.push(l),
    ...(opts.limits && { limits: opts.limits }),
    ...(opts.allowHosts && { allowHosts: opts.allowHosts }),
    ...(opts.token && { token: opts.token }),
  });
  return { ...server, dataDir, logs };
}

export interface TarEntry {
  name: string;
  content?: string | Buffer;
  type?: "file" | "symlink" | "directory" | "link";
  linkname?: string;
}

export async function tarGz(entries: TarEntry[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    pack.on("data", (c: unknown) => chunks.push(c as Buffer));
    pack.on("end", () => resolve());
    pack.on("error", reject);
  });
  for (const e of entries) {
    const type = e.type ?? "file";
    if (type === "file") pack.entry({ name: e.name, type }, e.content ?? "");
    else pack.entry({ name: e.name, type, ...(e.linkname !== undefined && { linkname: e.linkname }) });
  }
  pack.finalize();
  await done;
  return gzipSync(Buffer.concat(chunks));
}

/** POSTs files as the page does (multipart, field "files"); returns status and JSON body. */
export async function uploadFiles(
  server: TestServer,
  files: { name: string; content: string | Buffer }[],
  query = "",
): Promise<{ status: number; body: Record<string, unknown> }> {
  const form = new FormData();
  for (const f of files) form.append("files", new Blob([f.content]), f.name);
  const res = await fetch(new URL(`api/incidents${query}`, server.url), { method: "POST", body: form });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

export async function getJson(server: TestServer, path: string): Promise<{ status: number; body: Record<string, unknown>; text: string }> {
  const res = await fetch(new URL(path.replace(/^\//, ""), server.url));
  const text = await res.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = {};
  }
  return { status: res.status, body, text };
}

/** dist/test/ui/ → the repository's fixture bundles. */
export const FIXTURES = fileURLToPath(new URL("../../../fixtures/incidents/", import.meta.url));

/** A fixture bundle as a user would pack it: every file under its host folders, without the answer key. */
export async function fixtureTarGz(name: string): Promise<Buffer> {
  const dir = join(FIXTURES, name);
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && d.name !== "expected.json")
    .map((d) => relative(dir, join(d.parentPath, d.name)).split(sep).join("/"))
    .sort();
  return tarGz(files.map((f) => ({ name: f, content: readFileSync(join(dir, f), "utf8") })));
}

/** Polls an incident until it is ready or failed (a condition, not a timing); throws if it does not exist. */
export async function waitForIncident(server: TestServer, id: string): Promise<Record<string, unknown>> {
  for (;;) {
    const { status, body } = await getJson(server, `/api/incidents/${id}`);
    if (status !== 200) throw new Error(`incident ${id}: ${status} ${JSON.stringify(body)}`);
    const incident = body["incident"] as { status: string };
    if (incident.status === "ready" || incident.status === "failed") return incident;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Holds an incident's "ready" back once its job has ended: the registry keeps
 * the state it had before (for a job that stored its findings, "analyzing"
 * with them ready) until `release`, so a test sees that state for as long as
 * it needs, whatever the job's speed. `held` resolves when the job has ended.
 */
export function holdReady(server: TestServer, id: string): { held: Promise<void>; release(): void } {
  const registry = server.registry;
  const update = registry.update.bind(registry);
  let pending: (() => void) | null = null;
  let ended!: () => void;
  const held = new Promise<void>((resolve) => (ended = resolve));
  registry.update = (target, patch, opts) => {
    if (target !== id || patch.status !== "ready") return update(target, patch, opts);
    pending = () => update(target, patch, opts);
    ended();
    return registry.get(target)!;
  };
  return {
    held,
    release() {
      registry.update = update;
      pending?.();
    },
  };
}
