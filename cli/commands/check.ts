// `kvrewind check <incident.db | paths...> (--hypothesis FILE | --expr '...' | NAME)`:
// a user's ordering property checked against an incident (docs/hypotheses.md).
// Two incident databases are an A/B: instances and violation rate in each.
// `--list` prints the named hypotheses of docs/hypotheses/. Exit 1 when a
// hypothesis is violated (in an A/B: in either incident), 3 when none is but
// an input was not read, 2 on a usage or input error (cli/exitCodes.ts).

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { Argv, CommandModule } from "yargs";
import type { Hypothesis } from "../../analyzer/hypotheses/ast.js";
import { libraryHypothesis, loadHypothesisFile, loadLibrary, parseExpression } from "../../analyzer/hypotheses/library.js";
import { renderAbMarkdown, renderAbText, renderVerdictsMarkdown, renderVerdictsText, type AbRow } from "../../analyzer/hypotheses/report.js";
import { checkHypotheses } from "../../analyzer/hypotheses/run.js";
import { closest } from "../../analyzer/hypotheses/typing.js";
import { hypothesisVerdictSchema, type HypothesisVerdict } from "../../analyzer/hypotheses/verdict.js";
import { bundleName, ingestInputs } from "./analyze.js";
import { isSqliteFile, openIncidentFile } from "./incidentFile.js";
import { listSources } from "../../store/read/sources.js";
import { EXIT_CODES_HELP, reportUnread, unreadInputs, verdictExitCode } from "../exitCodes.js";

interface CheckArgs {
  inputs?: string[];
  hypothesis?: string[];
  expr?: string[];
  list?: boolean;
  json?: boolean;
  markdown?: boolean;
  db?: string;
  tz?: string;
}

export const checkCommand: CommandModule<object, CheckArgs> = {
  command: "check [inputs..]",
  describe: "Check an ordering property (a hypothesis) against an incident: violated with witnesses, consistent, or undetermined",
  builder: (y: Argv) =>
    y
      .positional("inputs", { type: "string", array: true, describe: "an incident database (two: an A/B), or log files / directories to ingest; a library hypothesis by NAME" })
      .option("hypothesis", { type: "string", array: true, describe: "a hypothesis file (.hyp text, or .json syntax tree)" })
      .option("expr", { type: "string", array: true, describe: "a hypothesis written inline" })
      .option("list", { type: "boolean", describe: "list the named hypotheses (docs/hypotheses/)" })
      .option("json", { type: "boolean", describe: "print the verdicts as JSON" })
      .option("markdown", { type: "boolean", describe: "print the verdicts in Markdown" })
      .option("db", { type: "string", describe: "when checking paths: ingest them into this database and keep it" })
      .option("tz", { type: "string", describe: "when checking paths: zone the logs were written in (default UTC)" })
      .conflicts("json", "markdown")
      .epilogue(EXIT_CODES_HELP) as unknown as Argv<CheckArgs>,
  handler: async (argv) => {
    if (argv.list) return void process.stdout.write(listText());
    const { hypotheses, inputs } = chosen(argv);
    if (inputs.length === 0) throw new Error("name an incident database or the logs to check");
    if (inputs.length === 2 && inputs.every(isSqliteFile)) return abCheck(argv, inputs as [string, string], hypotheses);
    const { verdicts, unread } = await withIncident(argv, inputs, (path) => checkFile(path, hypotheses));
    process.stdout.write(argv.json ? `${JSON.stringify({ incident: incidentName(inputs), hypotheses: verdicts.map((v) => hypothesisVerdictSchema.parse(v)) }, null, 2)}\n` : argv.markdown ? renderVerdictsMarkdown(verdicts, "## Hypotheses checked") : renderVerdictsText(verdicts));
    reportUnread(unread);
    process.exitCode = verdictExitCode(verdicts.some((v) => v.verdict === "violated"), unread);
  },
};

function listText(): string {
  const lib = loadLibrary();
  const width = Math.max(...lib.map((h) => h.name!.length));
  return lib.map((h) => `${h.name!.padEnd(width)}  ${h.statement ?? ""}\n`).join("");
}

/** The hypotheses asked for, and the positionals that are inputs (a positional naming a library hypothesis and no file is that hypothesis). */
function chosen(argv: CheckArgs): { hypotheses: Hypothesis[]; inputs: string[] } {
  const hypotheses = [...(argv.hypothesis ?? []).map(loadHypothesisFile), ...(argv.expr ?? []).map(parseExpression)];
  const inputs: string[] = [];
  for (const p of argv.inputs ?? []) {
    if (existsSync(p)) {
      inputs.push(p);
      continue;
    }
    const named = libraryHypothesis(p);
    if (!named) throw new Error(unknownName(p));
    hypotheses.push(named);
  }
  if (hypotheses.length === 0) throw new Error("give a hypothesis: --hypothesis FILE, --expr '...', or a NAME from `kvrewind check --list`");
  return { hypotheses, inputs };
}

/** Why a positional is neither a file nor a library hypothesis, with the names the library has (the nearest first when it is a typo). */
function unknownName(name: string): string {
  const names = loadLibrary().map((h) => h.name!);
  const near = closest(name, names);
  return [
    `${name}: no such file, and no library hypothesis of that name${near ? ` (did you mean ${near}?)` : ""}.`,
    `The library's hypotheses (\`kvrewind check --list\` states each):`,
    ...names.map((n) => `  ${n}`),
  ].join("\n");
}

interface Checked {
  verdicts: HypothesisVerdict[];
  /** Inputs of the incident that could not be looked at (cli/exitCodes.ts). */
  unread: string[];
}

function checkFile(path: string, hypotheses: Hypothesis[]): Checked {
  const db = openIncidentFile(path, { readonly: true });
  try {
    return { verdicts: checkHypotheses(db, hypotheses).verdicts, unread: unreadInputs(listSources(db)) };
  } finally {
    db.close();
  }
}

async function withIncident<T>(argv: CheckArgs, inputs: string[], use: (path: string) => T): Promise<T> {
  if (inputs.length === 1 && isSqliteFile(inputs[0]!)) return use(inputs[0]!);
  const temp = argv.db ? undefined : mkdtempSync(join(tmpdir(), "kvrewind-check-"));
  try {
    const db = argv.db ?? join(temp!, "incident.db");
    await ingestInputs({ inputs, failOn: "high", ...(argv.tz !== undefined && { tz: argv.tz }) }, db, undefined, { derive: temp === undefined });
    return use(db);
  } finally {
    if (temp) rmSync(temp, { recursive: true, force: true });
  }
}

function incidentName(inputs: string[]): string {
  return inputs.length === 1 ? basename(inputs[0]!) : bundleName(inputs);
}

function abCheck(argv: CheckArgs, paths: [string, string], hypotheses: Hypothesis[]): void {
  const [checkedA, checkedB] = paths.map((p) => checkFile(p, hypotheses)) as [Checked, Checked];
  const [a, b] = [checkedA.verdicts, checkedB.verdicts];
  const rows: AbRow[] = hypotheses.map((h, i) => ({ hypothesis: h.name ?? a[i]!.property, a: a[i]!, b: b[i]! }));
  const names = paths.map((p) => basename(p)) as [string, string];
  if (argv.json) process.stdout.write(`${JSON.stringify({ a: names[0], b: names[1], hypotheses: rows }, null, 2)}\n`);
  else process.stdout.write(argv.markdown ? renderAbMarkdown(names, rows) : renderAbText(names, rows));
  const unread = [...checkedA.unread, ...checkedB.unread];
  reportUnread(unread);
  process.exitCode = verdictExitCode(rows.some((r) => r.a.verdict === "violated" || r.b.verdict === "violated"), unread);
}
