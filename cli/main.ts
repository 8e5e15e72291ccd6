#!/usr/bin/env node
// The `kvrewind` command: parses arguments (yargs) and hands each command to
// the module that does the work. Exit codes: cli/exitCodes.ts.

import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import type { CommandModule } from "yargs";
import { EXIT_CODES_HELP, ExitCode } from "./exitCodes.js";
import { analyzeCommand } from "./commands/analyze.js";
import { checkCommand } from "./commands/check.js";
import { demoCommand } from "./commands/demo.js";
import { diffCommand } from "./commands/diff.js";
import { exportCommand } from "./commands/export.js";
import { ingestCommand } from "./commands/ingest.js";
import { queryCommand } from "./commands/query.js";
import { replayCommand } from "./commands/replay.js";
import { serveCommand } from "./commands/serve.js";

const commands: CommandModule[] = [
  ingestCommand as CommandModule,
  analyzeCommand as CommandModule,
  replayCommand as CommandModule,
  diffCommand as CommandModule,
  checkCommand as CommandModule,
  exportCommand as CommandModule,
  queryCommand as CommandModule,
  serveCommand,
  demoCommand,
];

export async function main(argv: string[]): Promise<void> {
  await yargs(argv)
    .scriptName("kvrewind")
    .command(commands)
    .demandCommand(1, "name a command; see --help")
    .strict()
    .fail((msg, err) => {
      process.stderr.write(`kvrewind: ${err ? err.message : msg}\n`);
      process.exit(ExitCode.usage);
    })
    .epilogue(EXIT_CODES_HELP)
    .help()
    .parseAsync();
}

// A reader that stops early (`kvrewind replay … | head`) closes the pipe: stop
// quietly, as other command-line tools do, instead of dying on the write.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code === "EPIPE") process.exit(0);
  throw err;
});

await main(hideBin(process.argv));
