// `kvrewind ingest <paths...> --db incident.db [--host H --role R] [--tz ZONE] [--append] [--json] [--verbose]`
// Files, directories, .gz and .tar.gz bundles → one ordered incident database,
// then the derive step (ui/server/derive.ts) so that readers only read.
// Progress (bytes and lines per second) on stderr when it is a terminal; quiet
// when piped or with --json. The summary fits a screen: totals, what was not
// understood, refused and skipped inputs (cli/commands/ingestSummary.ts);
// --verbose lists every source. Exit 0 when every input was ingested, already present or skipped
// (empty); 3 when an input was refused or has lines that could not be read
// (the others are ingested all the same); 2 for a usage error, a missing
// path, nothing readable, or sources that look like another incident
// (another --tz, a distant time span) without --append (cli/exitCodes.ts).

import cliProgress from "cli-progress";
import type { Argv, CommandModule } from "yargs";
import { z } from "zod";
import { ROLES } from "../../domain/vocabulary.js";
import { EXIT_CODES_HELP, reportUnread, unreadInputs, verdictExitCode } from "../exitCodes.js";
import { ingest, type IngestProgress, type IngestSummary } from "../../ingest/pipeline.js";
import { renderSummary } from "./ingestSummary.js";
import { deriveFile, showProgress } from "./analyze.js";

const IngestArgs = z.object({
  paths: z.array(z.string().min(1)).min(1, "name at least one file or directory"),
  db: z.string().min(1, "--db needs a path"),
  host: z.string().min(1).optional(),
  role: z.enum(ROLES).optional(),
  tz: z.string().min(1).optional(),
  append: z.boolean().default(false),
  json: z.boolean().default(false),
  verbose: z.boolean().default(false),
});
type IngestArgs = z.infer<typeof IngestArgs>;

export const ingestCommand: CommandModule<object, IngestArgs> = {
  command: "ingest <paths..>",
  describe: "Ingest logs, probe records, checksum dumps and Flight Recorder dumps into an incident database",
  builder: (y: Argv) =>
    y
      .positional("paths", { type: "string", array: true, demandOption: true, describe: "files, directories, .gz or .tar.gz bundles" })
      .option("db", { type: "string", demandOption: true, describe: "the incident database (created when missing)" })
      .option("host", { type: "string", describe: "host of sources whose content and path do not name one" })
      .option("role", { choices: ROLES, describe: "role of sources whose content and path do not say" })
      .option("tz", { type: "string", describe: "zone the logs were written in: IANA name or ±HH:MM (default UTC)" })
      .option("append", {
        type: "boolean",
        default: false,
        describe: "the sources belong to the incident already in the database, even read in another zone or far from its time span",
      })
      .option("json", { type: "boolean", default: false, describe: "print the summary as JSON" })
      .option("verbose", { type: "boolean", default: false, describe: "list every input in the summary, with its unparsed shapes and errors" })
      .epilogue(EXIT_CODES_HELP) as unknown as Argv<IngestArgs>,
  handler: async (argv) => {
    const parsed = IngestArgs.safeParse(argv);
    if (!parsed.success) throw new Error(parsed.error.issues.map((i) => i.message).join("; "));
    const args = parsed.data;
    const progress = !args.json && process.stderr.isTTY ? new ProgressView() : undefined;
    let summary: IngestSummary;
    try {
      summary = await ingest({
        db: args.db,
        paths: args.paths,
        ...(args.host !== undefined && { host: args.host }),
        ...(args.role !== undefined && { role: args.role }),
        ...(args.tz !== undefined && { tz: args.tz }),
        append: args.append,
        ...(progress && { onProgress: (p: IngestProgress) => progress.update(p) }),
      });
    } finally {
      progress?.stop();
    }
    if (summary.eventsTotal > 0) deriveFile(args.db, progress && showProgress);
    process.stdout.write(args.json ? `${JSON.stringify(summary, null, 2)}\n` : renderSummary(summary, args.verbose));
    // An ingest judges nothing: it is clean, or could not look at everything (cli/exitCodes.ts).
    const unread = unreadInputs(summary.sources);
    reportUnread(unread);
    process.exitCode = verdictExitCode(false, unread);
  },
};

/** A progress bar per phase (scan, load): MB and MB/s, and lines/s while loading. */
class ProgressView {
  private readonly bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: "{phase} |{bar}| {percentage}% {detail}",
      hideCursor: true,
      clearOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
  private phase: IngestProgress["phase"] | undefined;
  private started = 0;

  update(p: IngestProgress): void {
    if (p.phase !== this.phase) {
      if (this.phase !== undefined) this.bar.stop();
      this.phase = p.phase;
      this.started = performance.now();
      this.bar.start(Math.max(1, p.total), 0, { phase: p.phase.padEnd(5), detail: "" });
    }
    this.bar.update(p.done, { detail: this.detail(p) });
  }

  private detail(p: IngestProgress): string {
    const seconds = Math.max(1e-3, (performance.now() - this.started) / 1000);
    const mb = (n: number): string => (n / 1e6).toFixed(1);
    const rates = `${(p.done / 1e6 / seconds).toFixed(0)} MB/s`;
    const lines = p.phase === "load" ? `  ${Math.round(p.lines / seconds).toLocaleString("en-US")} lines/s` : "";
    return `${mb(p.done)}/${mb(p.total)} MB  ${rates}${lines}`;
  }

  stop(): void {
    if (this.phase !== undefined) this.bar.stop();
  }
}
