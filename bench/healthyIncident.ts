// The incident the replay and analyze benchmarks run on: the fixture
// generator's healthy scenario, scaled to at least `target` events and
// ingested through the real pipeline. BENCH_DIR (or the caller's cache
// folder under bench/out) keeps it between runs.

import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { generateBundle, scaledScenario } from "../fixtures/generator/bundle.js";
import { incident } from "../fixtures/generator/scenarios/incidents.js";
import { ingest } from "../ingest/pipeline.js";
import { IncidentSchemaError, openIncident } from "../store/db.js";
import { eventCount } from "../store/read/incident.js";

/** The fixture generator's large mode writes ~229 lines per session (fixtures/README.md), nearly all one event each. */
const LINES_PER_SESSION = 229;

/** bench/out/<name> of the repository (gitignored): where a benchmark keeps what it built between runs. */
export function benchOutDir(name: string): string {
  return fileURLToPath(new URL(`../../bench/out/${name}`, import.meta.url));
}

/**
 * The path of an incident database holding at least `target` events, built
 * unless BENCH_DIR (else `cacheDir`, else a fresh temporary folder) already
 * has one. In `cacheDir` the generated logs are removed once ingested: the
 * database holds the events and their text.
 */
export async function healthyIncidentDb(target: number, label: string, cacheDir?: string): Promise<string> {
  const dir = process.env.BENCH_DIR ?? cacheDir ?? mkdtempSync(join(tmpdir(), `kvrewind-bench-${label}-`));
  mkdirSync(dir, { recursive: true });
  const db = join(dir, "incident.db");
  if (existsSync(db)) {
    const n = keptEvents(db);
    if (n >= target) {
      console.log(`reusing ${db} (${n} events)`);
      return db;
    }
    // Too small for this benchmark (another one's, smaller) or of another schema: built afresh, not ingested into.
    console.log(`${db} ${n < 0 ? "is of another schema" : `holds ${n} events, fewer than ${target}`}: building a new one`);
    for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
  }
  let t = performance.now();
  const inputs = join(dir, "inputs");
  rmSync(inputs, { recursive: true, force: true });
  const sessions = Math.ceil((target * 1.03) / LINES_PER_SESSION);
  const made = generateBundle(scaledScenario(incident("healthy"), sessions), inputs);
  console.log(`fixture generator: healthy scenario, ${sessions} sessions, ${made.lines} lines in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  t = performance.now();
  const summary = await ingest({ db, paths: [inputs] });
  console.log(`ingested ${summary.eventsTotal} events in ${((performance.now() - t) / 1000).toFixed(1)} s into ${db}`);
  if (summary.eventsTotal < target) console.log(`(fewer events than the ${target} asked for)`);
  if (process.env.BENCH_DIR === undefined && cacheDir !== undefined) rmSync(inputs, { recursive: true, force: true });
  return db;
}

/** The events a kept incident holds; -1 when it was written under another schema. */
function keptEvents(path: string): number {
  try {
    const d = openIncident(path, { readonly: true });
    try {
      return eventCount(d);
    } finally {
      d.close();
    }
  } catch (e) {
    if (e instanceof IncidentSchemaError) return -1;
    throw e;
  }
}
