// `kvrewind export <incident.db> --format chrome-json > trace.json`: the
// incident as a Chrome trace that Perfetto opens (analyzer/report/chromeTrace.ts).
// `--format parquet --out DIR`: its events, sources and findings as Parquet
// files, for DuckDB, ClickHouse or Spark over many incidents at once
// (analyzer/report/parquetExport.ts, docs/scale.md).

import { closeSync, openSync, writeSync } from "node:fs";
import { basename } from "node:path";
import type { Argv, CommandModule } from "yargs";
import { z } from "zod";
import { exportChromeTrace } from "../../analyzer/report/chromeTrace.js";
import { exportParquet, type ParquetExportSummary } from "../../analyzer/report/parquetExport.js";
import type { IncidentDb } from "../../store/db.js";
import { readAnalysisRows } from "../../store/read/analysis.js";
import { clearProgress, showProgress } from "../progress.js";
import { openIncidentFile } from "./incidentFile.js";

const FORMATS = ["chrome-json", "parquet"] as const;

interface ExportArgs {
  db: string;
  format: (typeof FORMATS)[number];
  out?: string;
  force?: boolean;
  incident?: string;
}

export const exportCommand: CommandModule<object, ExportArgs> = {
  command: "export <db>",
  describe: "Export an incident as a Chrome trace (opens in Perfetto) or as Parquet files (DuckDB, ClickHouse, Spark)",
  builder: (y: Argv) =>
    y
      .positional("db", { type: "string", demandOption: true, describe: "incident database" })
      .option("format", { choices: FORMATS, demandOption: true })
      .option("out", {
        type: "string",
        describe: "chrome-json: write to this file instead of stdout; parquet: the folder to write events.parquet, sources.parquet and findings.parquet to (made when absent)",
      })
      .option("force", { type: "boolean", describe: "parquet: replace the Parquet files an earlier export left in --out" })
      .option("incident", { type: "string", describe: "parquet: the incident column of every row (default: the name its analysis gave it, else the file's name)" })
      .check((argv) => {
        if (argv.format === "parquet" && !argv.out) throw new Error("--format parquet writes three files: name the folder with --out DIR");
        if (argv.format !== "parquet" && (argv.force !== undefined || argv.incident !== undefined)) throw new Error("--force and --incident go with --format parquet");
        if (argv.incident !== undefined && String(argv.incident).trim() === "") throw new Error("--incident: give the incident a name");
        return true;
      }) as unknown as Argv<ExportArgs>,
  handler: async (argv) => {
    const db = openIncidentFile(argv.db, { readonly: true });
    try {
      if (argv.format === "parquet") writeParquet(db, argv as ExportArgs & { out: string });
      else writeChromeTrace(db, argv.out);
    } finally {
      db.close();
    }
  },
};

function writeChromeTrace(db: IncidentDb, out: string | undefined): void {
  const fd = out ? openSync(out, "w") : 1;
  try {
    let buffered = "";
    exportChromeTrace(db, (chunk) => {
      buffered += chunk;
      if (buffered.length >= 1 << 16) {
        writeAllSync(fd, buffered);
        buffered = "";
      }
    });
    writeAllSync(fd, buffered);
  } finally {
    if (fd !== 1) closeSync(fd);
  }
}

function writeParquet(db: IncidentDb, argv: ExportArgs & { out: string }): void {
  const progress = process.stderr.isTTY ? showProgress : undefined;
  const summary = exportParquet(db, {
    dir: argv.out,
    incident: argv.incident ?? analysisName(db) ?? basename(argv.db),
    force: argv.force ?? false,
    ...(progress && { onProgress: progress }),
  });
  if (progress) clearProgress();
  process.stdout.write(renderParquetSummary(summary, argv.out));
  if (!summary.analyzed) process.stderr.write(`kvrewind: ${argv.db}: no analysis stored, so findings.parquet has no rows (\`kvrewind analyze ${argv.db}\` stores one)\n`);
}

/** The name the incident's stored analysis gave it (`kvrewind analyze`, the server), if one was stored. */
function analysisName(db: IncidentDb): string | undefined {
  const header = z.object({ incident: z.object({ name: z.string().min(1) }) }).safeParse(readAnalysisRows(db)?.header);
  return header.success ? header.data.incident.name : undefined;
}

function renderParquetSummary(summary: ParquetExportSummary, dir: string): string {
  const count = (n: number, what: string): string => `${n.toLocaleString("en-US")} ${what}${n === 1 ? "" : "s"}`;
  const lines = summary.files.map((f) => `  ${f.file.padEnd(17)} ${count(f.rows, "row")} in ${count(f.rowGroups, "row group")}, ${(f.bytes / 1e6).toFixed(2)} MB`);
  return `${dir}:\n${lines.join("\n")}\n`;
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes all of `text` to `fd`. Node makes a piped stdout non-blocking, so a
 * write to a full pipe (a reader slower than the export) answers EAGAIN or
 * takes part of the bytes: wait a moment and write the rest.
 */
function writeAllSync(fd: number, text: string): void {
  let bytes = Buffer.from(text, "utf8");
  while (bytes.length > 0) {
    try {
      bytes = bytes.subarray(writeSync(fd, bytes));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EAGAIN") throw err;
      Atomics.wait(pause, 0, 0, 2);
    }
  }
}
