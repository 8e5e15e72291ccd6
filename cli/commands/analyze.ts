// `kvrewind analyze <incident.db | paths...>`: run the rules, store findings
// and suspects in the incident, print the report (text, --json or --markdown).
// Exit 1 when a violated finding is at or above --fail-on.

import { basename } from "node:path";
import type { Argv, CommandModule } from "yargs";
import { buildTimeline, renderMarkdown } from "../../analyzer/report/markdown.js";
import { renderJson } from "../../analyzer/report/json.js";
import { renderText } from "../../analyzer/report/text.js";
import { abEvidenceOf, diffIncidents } from "../../analyzer/rules/diff.js";
import { atOrAbove, SEVERITIES, type AnalysisReport, type Severity } from "../../analyzer/rules/finding.js";
import { analyzeIncident, storeAnalysis } from "../../analyzer/rules/index.js";
import { openIncidentFile } from "./incidentFile.js";

interface AnalyzeArgs {
  inputs: string[];
  json?: boolean;
  markdown?: boolean;
  failOn: Severity;
  baseline?: string;
  profile?: string;
}

export const analyzeCommand: CommandModule<object, AnalyzeArgs> = {
  command: "analyze <inputs..>",
  describe: "Find ordering violations and rank root-cause suspects in an incident",
  builder: (y: Argv) =>
    y
      .positional("inputs", { type: "string", array: true, demandOption: true, describe: "an incident database, or log files / directories / bundles to ingest first" })
      .option("json", { type: "boolean", describe: "print the JSON contract" })
      .option("markdown", { type: "boolean", describe: "print a post-mortem in Markdown" })
      .option("fail-on", { choices: SEVERITIES, default: "high" as Severity, describe: "exit 1 when a violated finding is at or above this severity" })
      .option("profile", { type: "string", describe: "override the replay profile, e.g. backend=nixl,version=0.5.14,index_k_dtype=bf16,hicache=on" })
      .option("baseline", { type: "string", describe: "an incident database of the same workload under other settings (A/B evidence for the suspects)" })
      .conflicts("json", "markdown") as unknown as Argv<AnalyzeArgs>,
  handler: async (argv) => {
    const [input] = argv.inputs;
    if (argv.inputs.length !== 1 || input === undefined) throw new Error("analyze takes one incident database");
    const db = openIncidentFile(input, { readonly: false });
    try {
      const ab = argv.baseline ? baselineEvidence(argv.baseline, db, basename(input)) : undefined;
      const report = analyzeIncident(db, { name: basename(input), ...(ab && { ab }), ...(argv.profile && { profileFlag: argv.profile }) });
      storeAnalysis(db, report);
      process.stdout.write(argv.json ? renderJson(report) : argv.markdown ? renderMarkdown(report, buildTimeline(db, report)) : renderText(report));
      process.exitCode = failing(report, argv.failOn) ? 1 : 0;
    } finally {
      db.close();
    }
  },
};

function baselineEvidence(path: string, db: ReturnType<typeof openIncidentFile>, name: string) {
  const base = openIncidentFile(path, { readonly: true });
  try {
    return abEvidenceOf(diffIncidents({ db: base, name: basename(path) }, { db, name }));
  } finally {
    base.close();
  }
}

export function failing(report: AnalysisReport, floor: Severity): boolean {
  return report.findings.some((f) => f.verdict === "violated" && atOrAbove(f.severity, floor));
}
