// `kvrewind query <incident.db> "<SQL>"`: users' own read-only SQL over the
// incident — `events` (a virtual table over the event blocks) and the other
// tables (sources, findings, suspects, meta, …) — printed as a table, --json
// or --csv, stopped after --timeout-ms (docs/store.md "Queries").

import type { Argv, CommandModule } from "yargs";
import { formatCsv, formatJson, formatTable } from "../../store/query/queryFormat.js";
import { queryWithLimit } from "../../store/query/queryWithLimit.js";
import { openIncidentFile } from "./incidentFile.js";

interface QueryArgs {
  db: string;
  sql: string;
  json?: boolean;
  csv?: boolean;
  timeoutMs: number;
  maxRows: number;
}

export const queryCommand: CommandModule<object, QueryArgs> = {
  command: "query <db> <sql>",
  describe: "Run a read-only SQL query over an incident (events, sources, findings, …)",
  builder: (y: Argv) =>
    y
      .positional("db", { type: "string", demandOption: true, describe: "incident database" })
      .positional("sql", { type: "string", demandOption: true, describe: 'one read-only statement, e.g. "SELECT kind, COUNT(*) FROM events GROUP BY kind"' })
      .option("json", { type: "boolean", describe: "print {columns, rows, truncated} as JSON" })
      .option("csv", { type: "boolean", describe: "print CSV" })
      .option("timeout-ms", { type: "number", default: 5000, describe: "stop the query after this many milliseconds" })
      .option("max-rows", { type: "number", default: 10_000, describe: "print at most this many rows" })
      .conflicts("json", "csv") as unknown as Argv<QueryArgs>,
  handler: async (argv) => {
    // Refuses a file that is not an incident of the current schema before the user's SQL sees it.
    openIncidentFile(argv.db, { readonly: true }).close();
    const result = await queryWithLimit(argv.db, argv.sql, { timeoutMs: argv.timeoutMs, maxRows: argv.maxRows });
    process.stdout.write(argv.json ? formatJson(result) : argv.csv ? formatCsv(result) : formatTable(result));
  },
};
