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
          writeSync(fd, buffered);
          buffered = "";
        }
      });
      writeSync(fd, buffered);
    } finally {
      if (fd !== 1) closeSync(fd);
      db.close();
    }
  },
};
