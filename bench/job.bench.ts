// `npm run bench:job`: the upload's background job (ui/server/pipeline.ts) on
// a generated incident, as the server runs it: ingest, replay, checks, the
// findings stored (from then on the page shows the suspects), the timeline
// stored (from then on the page draws it). Prints when each was reached, the
// CPU of all threads and the peak RSS, for one run in this process: run it
// again, alternated with another build, to compare. The input is generated
// once (fixtures/generator, the healthy scenario scaled up, as bench:ui) and
// kept under bench/out/job/; each run ingests it into a fresh incident file.
// BENCH_JOB_SIZE=1m (default, 1.3 M events) or 10m.

import { existsSync, mkdirSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateBundle, scaledScenario } from "../fixtures/generator/bundle.js";
import { incident } from "../fixtures/generator/scenarios/incidents.js";
import { runPipeline, type PipelineMessage } from "../ui/server/pipeline.js";
import { eventCount } from "../store/read/incident.js";
import { openIncident } from "../store/db.js";

const OUT = fileURLToPath(new URL("../../bench/out/job/", import.meta.url));

/** Healthy sessions: ~265 events each, the sizes of bench:ui. */
const SESSIONS: Record<string, number> = { "1m": 5000, "10m": 38_000 };

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function inputOf(size: string, sessions: number): string {
  const dir = join(OUT, size, "input");
  const complete = join(OUT, size, "input.complete");
  if (!existsSync(complete)) {
    mkdirSync(dir, { recursive: true });
    process.stderr.write(`generating ${sessions} healthy sessions into bench/out/job/${size}/input …\n`);
    generateBundle(scaledScenario(incident("healthy"), sessions), dir);
    mkdirSync(complete);
  }
  return dir;
}

async function main(): Promise<void> {
  const size = process.env["BENCH_JOB_SIZE"] ?? "1m";
  const sessions = SESSIONS[size];
  if (sessions === undefined) throw new Error(`BENCH_JOB_SIZE takes ${Object.keys(SESSIONS).join(", ")}`);
  const input = inputOf(size, sessions);
  const dbPath = join(OUT, size, "incident.db");
  for (const end of ["", "-wal", "-shm", "-journal"]) rmSync(`${dbPath}${end}`, { force: true });
  process.chdir(input);
  const start = performance.now();
  const at: Partial<Record<"ingested" | "analyzed", number>> = {};
  await runPipeline({ dbPath, name: `healthy ×${sessions}` }, (msg: PipelineMessage) => {
    if (msg.type === "progress" && msg.progress.phase === "analyze") at.ingested ??= performance.now() - start;
    if (msg.type === "analyzed") at.analyzed = performance.now() - start;
  });
  const done = performance.now() - start;
  const usage = process.resourceUsage();
  const db = openIncident(dbPath, { readonly: true });
  const events = eventCount(db);
  db.close();
  const [ingested, analyzed] = [at.ingested ?? NaN, at.analyzed ?? NaN];
  process.stdout.write(
    [
      `bench:job ${size}: ${events.toLocaleString("en-US")} events`,
      `ingested at ${s(ingested)}; suspects stored at ${s(analyzed)} (${s(analyzed - ingested)} after the ingest); timeline stored at ${s(done)} (${s(done - analyzed)} after the suspects)`,
      `CPU, all threads ${s((usage.userCPUTime + usage.systemCPUTime) / 1000)}; peak RSS ${(usage.maxRSS / 1024).toFixed(0)} MB; load average ${loadavg().map((l) => l.toFixed(1)).join(" ")}`,
    ].join("\n") + "\n",
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:job: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
