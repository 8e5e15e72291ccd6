// `kvrewind diff <a.db> <b.db> [--json]`: A/B of two incidents of the same
// workload (analyzer/rules/diff.ts).

import { basename } from "node:path";
import type { Argv, CommandModule } from "yargs";
import { diffIncidents, incidentDiffSchema, type IncidentDiff } from "../../analyzer/rules/diff.js";
import { openIncidentFile } from "./incidentFile.js";

interface DiffArgs {
  a: string;
  b: string;
  json: boolean;
}

export const diffCommand: CommandModule<object, DiffArgs> = {
  command: "diff <a> <b>",
  describe: "Compare two incidents of the same workload under different settings (A/B)",
  builder: (y: Argv) =>
    y
      .positional("a", { type: "string", demandOption: true, describe: "incident database A (the baseline)" })
      .positional("b", { type: "string", demandOption: true, describe: "incident database B" })
      .option("json", { type: "boolean", default: false }) as unknown as Argv<DiffArgs>,
  handler: async (argv) => {
    const a = openIncidentFile(argv.a, { readonly: true });
    const b = openIncidentFile(argv.b, { readonly: true });
    try {
      const diff = diffIncidents({ db: a, name: basename(argv.a) }, { db: b, name: basename(argv.b) });
      process.stdout.write(argv.json ? JSON.stringify(incidentDiffSchema.parse(diff), null, 2) + "\n" : renderDiff(diff));
    } finally {
      a.close();
      b.close();
    }
  },
};

export function renderDiff(d: IncidentDiff): string {
  const pct = (r: { rate: number; count: number; total: number }): string => `${(r.rate * 100).toFixed(1)}% (${r.count}/${r.total})`;
  const out = [`A/B: ${d.a.name} (${d.a.rooms} rooms)  vs  ${d.b.name} (${d.b.rooms} rooms)`, "", d.conclusion, "", "SETTINGS THAT DIFFER"];
  if (d.settings.length === 0) out.push("  none stated");
  for (const s of d.settings) out.push(`  ${s.key.padEnd(28)} ${String(s.a).padEnd(12)} → ${String(s.b)}`);
  out.push("", "RATES");
  for (const r of d.rates) out.push(`  ${r.metric.padEnd(16)} ${pct(r.a).padEnd(18)} → ${pct(r.b)}`);
  out.push("", `ALIGNMENT by ${d.alignment.by}: ${d.alignment.aligned} aligned, ${d.alignment.onlyA} only in A, ${d.alignment.onlyB} only in B`);
  out.push(`FIRST DIVERGENCE: ${d.firstDivergence ? d.firstDivergence.description : "none: aligned requests went through the same protocol steps"}`);
  out.push("", "CAUSES");
  for (const c of d.causes) out.push(`  ${c.cause.padEnd(28)} ${c.effect.padEnd(9)} ${c.reason}`);
  return out.join("\n") + "\n";
}
