// `kvrewind analyze <incident.db | paths...>`: run the rules, store findings
// and suspects in the incident, print the report (text, --json or --markdown;
// each carries the hypotheses tested, docs/hypotheses.md "The ledger").
// Paths that are not one incident database are ingested first: into --db,
// then derived (the derive step's replay then serving the analysis), or into
// a temporary database removed afterwards, not derived (nothing is left for
// later readers; the analysis replays on its own, beside the rules' pass from
// a million events). Exit codes: cli/exitCodes.ts.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import type { Argv, CommandModule } from "yargs";
import { buildTimeline, renderMarkdown } from "../../analyzer/report/markdown.js";
import { renderJson } from "../../analyzer/report/json.js";
import { renderLedgerText, renderVerdictsMarkdown } from "../../analyzer/hypotheses/report.js";
import type { HypothesisVerdict } from "../../analyzer/hypotheses/verdict.js";
import { renderText } from "../../analyzer/report/text.js";
import { abEvidenceOf, diffIncidents } from "../../analyzer/rules/diff.js";
import { type AnalysisReport } from "../../analyzer/rules/finding.js";
import { atOrAbove, SEVERITIES, type Severity } from "../../domain/vocabulary.js";
import { analyzeIncident, storeAnalysis } from "../../analyzer/rules/index.js";
import { ROLES, type Role } from "../../domain/vocabulary.js";
import { ingest, type IngestProgress } from "../../ingest/pipeline.js";
import { openIncident, type IncidentDb } from "../../store/db.js";
import type { ReplaySummary } from "../../analyzer/replay/replay.js";
import { deriveIncident } from "../../analyzer/derive.js";
import { listSources } from "../../store/read/sources.js";
import { EXIT_CODES_HELP, reportUnread, unreadInputs, verdictExitCode } from "../exitCodes.js";
import { isSqliteFile, openIncidentFile } from "./incidentFile.js";
import { clearProgress, showProgress } from "../progress.js";
import { collectSooner } from "../heapGrowth.js";

interface AnalyzeArgs {
  inputs: string[];
  json?: boolean;
  markdown?: boolean;
  failOn: Severity;
  baseline?: string;
  profile?: string;
  db?: string;
  host?: string;
  role?: Role;
  tz?: string;
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
      .option("db", { type: "string", describe: "when analyzing paths: ingest them into this database and keep it" })
      .option("host", { type: "string", describe: "when analyzing paths: host of sources whose content and path do not name one" })
      .option("role", { choices: ROLES, describe: "when analyzing paths: role of sources whose content and path do not say" })
      .option("tz", { type: "string", describe: "when analyzing paths: zone the logs were written in (default UTC)" })
      .conflicts("json", "markdown")
      .epilogue(EXIT_CODES_HELP) as unknown as Argv<AnalyzeArgs>,
  handler: async (argv) => {
    collectSooner();
    const progress = !argv.json && !argv.markdown && process.stderr.isTTY ? showProgress : undefined;
    const single = argv.inputs.length === 1 && isSqliteFile(argv.inputs[0]!);
    const temp = single || argv.db ? undefined : mkdtempSync(join(tmpdir(), "kvrewind-analyze-"));
    try {
      // A temporary incident is removed once analyzed: nothing derived for later readers is wanted, and the analysis replays on its own.
      const ingested = single ? undefined : await ingestInputs(argv, argv.db ?? join(temp!, "incident.db"), progress, { derive: temp === undefined });
      const path = ingested?.path ?? argv.inputs[0]!;
      const name = single ? basename(path) : bundleName(argv.inputs);
      const db = openForAnalysis(path);
      try {
        const ab = argv.baseline ? baselineEvidence(argv.baseline, db, name) : undefined;
        const analysis = analyzeIncident(db, {
          name,
          ...(ab && { ab }),
          ...(argv.profile && { profileFlag: argv.profile }),
          ...(progress && { onProgress: progress }),
          ...(ingested?.replayed && { replayed: ingested.replayed }),
        });
        if (progress) clearProgress();
        if (!db.readonly) storeAnalysis(db, analysis);
        // The ledger: every library hypothesis checked against the incident, ruled-out ones included, in each form.
        const { hypotheses: ledger, ...report } = analysis;
        process.stdout.write(argv.json ? renderJson(report, ledger) : argv.markdown ? postMortem(db, report, ledger) : `${renderText(report)}\n${renderLedgerText(ledger)}`);
        const unread = unreadInputs(listSources(db));
        reportUnread(unread);
        process.exitCode = verdictExitCode(failing(report, argv.failOn), unread);
      } finally {
        db.close();
      }
    } finally {
      if (temp) rmSync(temp, { recursive: true, force: true });
    }
  },
};

/** The post-mortem ends with the ledger. */
function postMortem(db: IncidentDb, report: AnalysisReport, ledger: readonly HypothesisVerdict[]): string {
  return `${renderMarkdown(report, buildTimeline(db, report))}\n${renderVerdictsMarkdown(ledger)}`;
}

/** Read-write to store the findings; a database this user may not write is analyzed all the same, with a note. */
function openForAnalysis(path: string): IncidentDb {
  try {
    return openIncidentFile(path, { readonly: false });
  } catch (err) {
    if (!isSqliteFile(path) || !/readonly|read-only|permission|EACCES/i.test((err as Error).message)) throw err;
    process.stderr.write(`kvrewind: ${path} is read-only: the findings are printed but not stored\n`);
    return openIncidentFile(path, { readonly: true });
  }
}

/** A bundle's name: the directory its inputs share, else the inputs' own names. */
export function bundleName(inputs: string[]): string {
  const parents = new Set(inputs.map((p) => dirname(resolve(p))));
  return inputs.length > 1 && parents.size === 1 ? basename([...parents][0]!) : inputs.map((p) => basename(p)).join(" ");
}

/**
 * Ingests the named paths, then runs the derive step unless `opts.derive` is
 * false; skipped inputs are named on stderr (refused ones after the analysis,
 * as not read), and none ingested is an error. Returns the derive step's
 * replay (none when it did not run or everything derived was current).
 */
export async function ingestInputs(argv: AnalyzeArgs, db: string, progress: typeof showProgress | undefined, opts: { derive: boolean } = { derive: true }): Promise<{ path: string; replayed: ReplaySummary | undefined }> {
  const summary = await ingest({
    db,
    paths: argv.inputs,
    ...(argv.host !== undefined && { host: argv.host }),
    ...(argv.role !== undefined && { role: argv.role }),
    ...(argv.tz !== undefined && { tz: argv.tz }),
    ...(progress && { onProgress: (p: IngestProgress) => progress(`ingest ${p.phase}`, p.done, p.total) }),
  });
  if (progress) clearProgress();
  for (const s of summary.sources.filter((x) => x.status === "skipped")) process.stderr.write(`kvrewind: skipped ${s.path}: ${s.reason}\n`);
  if (summary.eventsTotal === 0) throw new Error(`${argv.inputs.join(", ")}: no events could be read`);
  return { path: db, replayed: opts.derive ? deriveFile(db, progress) : undefined };
}

/** The derive step on the incident at `path` (analyzer/derive.ts). */
export function deriveFile(path: string, progress: typeof showProgress | undefined): ReplaySummary | undefined {
  const db = openIncident(path);
  try {
    return deriveIncident(db, { ...(progress && { onProgress: (phase: string, done: number, total: number) => progress(`derive ${phase}`, done, total) }) });
  } finally {
    if (progress) clearProgress();
    db.close();
  }
}

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
