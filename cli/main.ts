#!/usr/bin/env node
// The `kvrewind` command: parses arguments (yargs) and hands each command to
// the module that does the work. Exit codes: cli/exitCodes.ts.

import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import type { CommandModule } from "yargs";
import { EXIT_CODES_HELP, ExitCode } from "./exitCodes.js";

/**
 * Each command's module, imported only when that command is the one asked
 * for: a command's start-up loads the code it runs, not every command's
 * (the server's, the analyzer's). The general help, a missing or an unknown
 * command load them all, in this order.
 */
const COMMANDS: Record<string, () => Promise<CommandModule>> = {
  ingest: async () => (await import("./commands/ingest.js")).ingestCommand as CommandModule,
  analyze: async () => (await import("./commands/analyze.js")).analyzeCommand as CommandModule,
  replay: async () => (await import("./commands/replay.js")).replayCommand as CommandModule,
  diff: async () => (await import("./commands/diff.js")).diffCommand as CommandModule,
  check: async () => (await import("./commands/check.js")).checkCommand as CommandModule,
  export: async () => (await import("./commands/export.js")).exportCommand as CommandModule,
  query: async () => (await import("./commands/query.js")).queryCommand as CommandModule,
  serve: async () => (await import("./commands/serve.js")).serveCommand,
  demo: async () => (await import("./commands/demo.js")).demoCommand,
};

async function commandsFor(argv: string[]): Promise<CommandModule[]> {
  const asked = Object.hasOwn(COMMANDS, argv[0] ?? "") ? COMMANDS[argv[0]!] : undefined;
  return asked ? [await asked()] : Promise.all(Object.values(COMMANDS).map((load) => load()));
}

export async function main(argv: string[]): Promise<void> {
  await yargs(argv)
    .scriptName("kvrewind")
    .command(await commandsFor(argv))
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
