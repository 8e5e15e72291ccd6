// `kvrewind ingest <paths...> --db incident.db [--host H --role R] [--tz ZONE] [--append] [--json] [--verbose]`
// `kvrewind ingest --prometheus URL --from T --to T [--match SELECTOR]… --db incident.db`
// Files, directories, .gz and .tar.gz bundles → one ordered incident database,
// then the derive step (analyzer/derive.ts) so that readers only read.
// Progress (bytes and lines per second) on stderr when it is a terminal; quiet
// when piped or with --json. The summary fits a screen: totals, what was not
// understood, refused and skipped inputs (cli/commands/ingestSummary.ts);
// --verbose lists every source. Exit 0 when every input was ingested, already present or skipped
// (empty); 3 when an input was refused or has lines that could not be read
// (the others are ingested all the same); 2 for a usage error, a missing
// path, nothing readable, or sources that look like another incident
// (another --tz, a distant time span) without --append (cli/exitCodes.ts).
// A Prometheus pull (ingest/prometheus/pull.ts) is done before the database
// is opened: a Prometheus that is down, refuses or is too slow is exit 2 with
// nothing written.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import cliProgress from "cli-progress";
import type { Argv, CommandModule } from "yargs";
import { z } from "zod";
import { ROLES } from "../../domain/vocabulary.js";
import { EXIT_CODES_HELP, reportUnread, unreadInputs, verdictExitCode } from "../exitCodes.js";
import { ingest, type IngestProgress, type IngestSummary, type PulledFile } from "../../ingest/pipeline.js";
import { DEFAULT_DEADLINE_MS, parsePullTime, pullPrometheus } from "../../ingest/prometheus/pull.js";
import { renderSummary } from "./ingestSummary.js";
import { deriveFile } from "./analyze.js";
import { showProgress } from "../progress.js";

const PullTime = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const us = parsePullTime(String(v));
  if (us === undefined) ctx.addIssue({ code: "custom", message: `${String(v)} is no time: give RFC 3339 with its zone (2026-11-20T03:30:00Z) or unix seconds` });
  return us ?? 0;
});

const IngestArgs = z
  .object({
    paths: z.array(z.string().min(1)).default([]),
    db: z.string().min(1, "--db needs a path"),
    host: z.string().min(1).optional(),
    role: z.enum(ROLES).optional(),
    tz: z.string().min(1).optional(),
    append: z.boolean().default(false),
    json: z.boolean().default(false),
    verbose: z.boolean().default(false),
    prometheus: z.string().min(1).optional(),
    from: PullTime.optional(),
    to: PullTime.optional(),
    match: z.array(z.string().min(1)).default([]),
    prometheusTimeout: z.number().positive("--prometheus-timeout is a number of seconds above 0").default(DEFAULT_DEADLINE_MS / 1000),
  })
  .refine((a) => a.paths.length > 0 || a.prometheus !== undefined, "name at least one file or directory, or --prometheus URL")
  .refine((a) => a.prometheus === undefined || (a.from !== undefined && a.to !== undefined), "--prometheus needs --from and --to (the incident window)")
  .refine((a) => a.prometheus !== undefined || (a.from === undefined && a.to === undefined && a.match.length === 0), "--from, --to and --match go with --prometheus URL");
type IngestArgs = z.infer<typeof IngestArgs>;

export const ingestCommand: CommandModule<object, IngestArgs> = {
  command: "ingest [paths..]",
  describe: "Ingest logs, probe records, dumps and Prometheus metrics (files or a live pull) into an incident database",
  builder: (y: Argv) =>
    y
      .positional("paths", { type: "string", array: true, describe: "files, directories, .gz or .tar.gz bundles" })
      .option("db", { type: "string", demandOption: true, describe: "the incident database (created when missing)" })
      .option("host", { type: "string", describe: "host of sources whose content and path do not name one" })
      .option("role", { choices: ROLES, describe: "role of sources whose content and path do not say" })
      .option("tz", { type: "string", describe: "zone the logs were written in: IANA name or ±HH:MM (default UTC)" })
      .option("append", {
        type: "boolean",
        default: false,
        describe: "the sources belong to the incident already in the database, even read in another zone or far from its time span",
      })
      .option("prometheus", { type: "string", describe: "pull the SGLang series of --from..--to from this Prometheus (http://host:9090)" })
      .option("from", { type: "string", describe: "with --prometheus: the window's start, RFC 3339 (2026-11-20T03:30:00Z) or unix seconds" })
      .option("to", { type: "string", describe: "with --prometheus: the window's end, RFC 3339 or unix seconds" })
      .option("match", { type: "string", array: true, describe: 'with --prometheus: a series selector, repeatable (default {__name__=~"sglang:.*"})' })
      .option("prometheus-timeout", { type: "number", describe: `with --prometheus: seconds the whole pull may take (default ${DEFAULT_DEADLINE_MS / 1000}; each request at most 10)` })
      .option("json", { type: "boolean", default: false, describe: "print the summary as JSON" })
      .option("verbose", { type: "boolean", default: false, describe: "list every input in the summary, with its unparsed shapes and errors" })
      .epilogue(EXIT_CODES_HELP) as unknown as Argv<IngestArgs>,
  handler: async (argv) => {
    const parsed = IngestArgs.safeParse(argv);
    if (!parsed.success) throw new Error(parsed.error.issues.map((i) => i.message).join("; "));
    const args = parsed.data;
    const pullDir = args.prometheus !== undefined ? mkdtempSync(join(tmpdir(), "kvrewind-pull-")) : undefined;
    const progress = !args.json && process.stderr.isTTY ? new ProgressView() : undefined;
    let summary: IngestSummary;
    try {
      const pulled: PulledFile[] = [];
      if (args.prometheus !== undefined) {
        const pull = { url: args.prometheus, fromUs: args.from!, toUs: args.to!, match: args.match, deadlineMs: args.prometheusTimeout * 1000 };
        pulled.push(await pullPrometheus(pull, pullDir!));
      }
      summary = await ingest({
        db: args.db,
        paths: args.paths,
        pulled,
        ...(args.host !== undefined && { host: args.host }),
        ...(args.role !== undefined && { role: args.role }),
        ...(args.tz !== undefined && { tz: args.tz }),
        append: args.append,
        ...(progress && { onProgress: (p: IngestProgress) => progress.update(p) }),
      });
    } finally {
      progress?.stop();
      if (pullDir !== undefined) rmSync(pullDir, { recursive: true, force: true });
    }
    if (summary.eventsTotal > 0) deriveFile(args.db, progress && showProgress);
    process.stdout.write(args.json ? `${JSON.stringify(summary, null, 2)}\n` : renderSummary(summary, args.verbose));
    // An ingest judges nothing: it is clean, or could not look at everything (cli/exitCodes.ts).
    const unread = unreadInputs(summary.sources);
    reportUnread(unread);
    process.exitCode = verdictExitCode(false, unread);
  },
};

/** A progress bar per phase: MB, MB/s and lines/s while loading, rows while storing. */
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
    if (p.phase === "store") return `${p.done.toLocaleString("en-US")}/${p.total.toLocaleString("en-US")} rows`;
    const rates = `${(p.done / 1e6 / seconds).toFixed(0)} MB/s`;
    const lines = `  ${Math.round(p.lines / seconds).toLocaleString("en-US")} lines/s`;
    return `${mb(p.done)}/${mb(p.total)} MB  ${rates}${lines}`;
  }

  stop(): void {
    if (this.phase !== undefined) this.bar.stop();
  }
}
