// `kvrewind check` benchmark: on the bench incident (the fixture generator's
// healthy scenario through the real ingest, BENCH_EVENTS events, default
// 6 M), the throughput of one pass for a one-pattern property and for a
// two-pattern ordering property, in events/s of the whole incident (the pass
// reads only the blocks holding the kinds a property names), wall and CPU.
// Target: ≥ 2 M events/s for the one-pattern property. Figures, not
// pass/fail. The incident is built once and kept in bench/out/healthy-<N>
// (BENCH_DIR overrides).

import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { parseHypothesis } from "../analyzer/hypotheses/parser.js";
import { checkHypotheses } from "../analyzer/hypotheses/run.js";
import { openIncident } from "../store/db.js";
import { eventCount } from "../store/read/incident.js";
import { benchOutDir, healthyIncidentDb } from "./healthyIncident.js";

const TARGET = Number(process.env.BENCH_EVENTS ?? 6_000_000);
const RUNS = 3;

const PROPERTIES = {
  "one pattern": "no kernel.read where buffer = index_k and consumer >= 3",
  "two patterns": "every index_k kernel.read on decode comes after the room's last kv.notify",
};

async function main(): Promise<void> {
  const path = await healthyIncidentDb(TARGET, "check", benchOutDir(`healthy-${TARGET}`));
  const db = openIncident(path);
  const total = eventCount(db);
  console.log(`${total} events in the incident`);
  for (const [label, text] of Object.entries(PROPERTIES)) {
    const h = parseHypothesis(text);
    const rates: string[] = [];
    let verdict = "";
    let decoded = 0;
    for (let i = 0; i < RUNS; i++) {
      const c0 = process.cpuUsage();
      const w0 = performance.now();
      const run = checkHypotheses(db, [h]);
      decoded = run.events;
      const wallMs = performance.now() - w0;
      const c = process.cpuUsage(c0);
      const cpuMs = (c.user + c.system) / 1000;
      const v = run.verdicts[0]!;
      verdict = `${v.verdict}, ${v.violated}/${v.checked} instances`;
      rates.push(`${(total / wallMs / 1000).toFixed(2)} M/s wall (${(total / cpuMs / 1000).toFixed(2)} M/CPU-s)`);
    }
    console.log(`${label}: ${text}\n  ${verdict}; ${decoded} events of its kinds decoded; events of the incident per second: ${rates.join(", ")}`);
  }
  console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(" ")} on ${cpus().length} CPUs: wall-clock figures include other processes' contention`);
  db.close();
}

await main();
