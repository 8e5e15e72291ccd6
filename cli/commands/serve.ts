// `kvrewind serve`: the web UI and its API over a data directory of incidents.

import type { CommandModule } from "yargs";
import { z } from "zod";
import { startServer } from "../../ui/server/server.js";

export const ServeArgs = z.object({
  "data-dir": z.string().min(1, "--data-dir needs a path"),
  port: z.number("--port takes a number").int("--port takes a whole number").min(0).max(65535, "--port is at most 65535"),
  host: z.string().min(1, "--host needs an address"),
});

/** Command-line options checked by a schema, with the first problem as a one-line error. */
export function parseArgs<T extends z.ZodType>(schema: T, argv: unknown): z.infer<T> {
  const parsed = schema.safeParse(argv);
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => i.message).join("; "));
  return parsed.data;
}

export const serveCommand: CommandModule = {
  command: "serve",
  describe: "serve the web UI over a data directory of incidents",
  builder: (y) =>
    y
      .option("data-dir", { type: "string", default: "data", describe: "where incidents are kept (created if missing)" })
      .option("port", { type: "number", default: 7070, describe: "TCP port (0 picks a free one)" })
      .option("host", { type: "string", default: "127.0.0.1", describe: "address to bind; anything but loopback exposes the incidents to the network" }),
  handler: async (argv) => {
    const args = parseArgs(ServeArgs, argv);
    const server = await startServer({ dataDir: args["data-dir"], port: args.port, host: args.host });
    process.stdout.write(`kvrewind serving ${args["data-dir"]} at ${server.url}\n`);
    const stop = () => void server.close().then(() => process.exit(0));
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  },
};
