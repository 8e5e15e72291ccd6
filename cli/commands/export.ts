// `kvrewind export <incident.db> --format chrome-json > trace.json`: the
// incident as a Chrome trace that Perfetto opens (analyzer/report/chromeTrace.ts).

import { closeSync, openSync, writeSync } from "node:fs";
import type { Argv, CommandModule } from "yargs";
import { exportChromeTrace } from "../../analyzer/report/chromeTrace.js";
import { openIncidentFile } from "./incidentFile.js";

interface ExportArgs {
  db: string;
  format: "chrome-json";
  out?: string;
}

export const exportCommand: CommandModule<object, ExportArgs> = {
  command: "export <db>",
  describe: "Export an incident as a Chrome trace (opens in Perfetto)",
  builder: (y: Argv) =>
    y
      .positional("db", { type: "string", demandOption: true, describe: "incident database" })
      .option("format", { choices: ["chrome-json"] as const, demandOption: true })
      .option("out", { type: "string", describe: "write to this file instead of stdout" }) as unknown as Argv<ExportArgs>,
  handler: async (argv) => {
    const db = openIncidentFile(argv.db, { readonly: true });
    const fd = argv.out ? openSync(argv.out, "w") : 1;
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
      db.close();
    }
  },
};

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
