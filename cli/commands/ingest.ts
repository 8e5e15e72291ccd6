// `kvrewind ingest <paths...> --db incident.db [--host H --role R] [--tz ZONE] [--append] [--json]`
// Files, directories, .gz and .tar.gz bundles → one ordered incident database,
// then the derive step (ui/server/derive.ts) so that readers only read.
// Progress (bytes and lines per second) on stderr when it is a terminal; quiet
// when piped or with --json. The summary lists per source what was not
// understood (the unparsed lines by message shape) and the times it had to
// infer. Exit 0 when every input was ingested, already present or skipped
// (empty), 2 for a usage error, a missing path, nothing readable, a refused
// input (the others are ingested all the same), or sources that look like
// another incident (another --tz, a distant time span) without --append.

import cliProgress from "cli-progress";
import type { Argv, CommandModule } from "yargs";
import { z } from "zod";
import { ROLES } from "../../domain/vocabulary.js";
import { ingest, type IngestProgress, type IngestSummary, type SourceSummary } from "../../ingest/pipeline.js";
import { deriveFile, showProgress } from "./analyze.js";

const IngestArgs = z.object({
  paths: z.array(z.string().min(1)).min(1, "name at least one file or directory"),
  db: z.string().min(1, "--db needs a path"),
  host: z.string().min(1).optional(),
  role: z.enum(ROLES).optional(),
  tz: z.string().min(1).optional(),
  append: z.boolean().default(false),
  json: z.boolean().default(false),
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
      .option("json", { type: "boolean", default: false, describe: "print the summary as JSON" }) as unknown as Argv<IngestArgs>,
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
    process.stdout.write(args.json ? `${JSON.stringify(summary, null, 2)}\n` : renderSummary(summary));
    const refused = summary.sources.filter((s) => s.status === "refused");
    for (const s of refused) process.stderr.write(`kvrewind: ${s.path}: ${s.reason}\n`);
    process.exitCode = refused.length > 0 ? 2 : 0;
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

/** Unparsed shapes shown per source; --json has them all (ingest/unparsedShapes.ts keeps the top 20). */
const SHOWN_SHAPES = 5;

function sourceLine(s: SourceSummary): string {
  if (s.status !== "ingested") return `${s.status.padEnd(9)} ${s.path}: ${s.reason}`;
  const who = [s.host && `host ${s.host}`, s.role && `role ${s.role}`, s.ranks.length > 0 && `ranks ${s.ranks.join(",")}`].filter(Boolean).join("  ");
  const span = s.first && s.last ? `  ${s.first} .. ${s.last}` : "";
  const format = s.wrapper !== null ? `${s.format} in ${s.wrapper}` : s.format;
  const inferred = s.inferred > 0 ? `  inferred times ${s.inferred}` : "";
  const lines = [
    `ingested  ${s.path}  ${format}  ${who}  lines ${s.lines}  events ${s.events}  unparsed ${s.unparsed}${inferred}  errors ${s.errorCount}${span}`,
  ];
  for (const e of s.errors.slice(0, 5)) lines.push(`            line ${e.line}: ${e.message}`);
  if (s.errorCount > 5) lines.push(`            ... ${s.errorCount - 5} more`);
  if (s.timeOrigin !== null) lines.push(`            times: ${s.timeOrigin}`);
  const shapes = s.unparsedShapes.slice(0, SHOWN_SHAPES);
  if (shapes.length > 0) lines.push("            not understood (count, shape, first line):");
  for (const u of shapes) lines.push(`            ${String(u.count).padStart(7)}  ${u.shape}${u.line > 0 ? `  (line ${u.line})` : ""}`);
  const rest = s.unparsedShapes.slice(SHOWN_SHAPES).reduce((n, u) => n + u.count, 0);
  if (rest > 0) lines.push(`            ${String(rest).padStart(7)}  lines of other shapes (--json lists them)`);
  return lines.join("\n");
}

export function renderSummary(summary: IngestSummary): string {
  const offsets = Object.entries(summary.clockOffsetsUs)
    .map(([host, us]) => `${host} ${us >= 0 ? "+" : ""}${us} us`)
    .join(", ");
  return [
    ...summary.sources.map(sourceLine),
    `${summary.db}: ${summary.eventsTotal} events (${summary.eventsAdded} added)${offsets ? `; clock offsets: ${offsets}` : ""}`,
    "",
  ].join("\n");
}
