// `kvrewind serve`: the web UI and its API over a data directory of incidents.

import type { Argv, CommandModule } from "yargs";
import { z } from "zod";
import { startServer, type RunningServer } from "../../ui/server/server.js";

export const ServeArgs = z.object({
  "data-dir": z.string().min(1, "--data-dir needs a path"),
  port: z.number("--port takes a number").int("--port takes a whole number").min(0).max(65535, "--port is at most 65535"),
  host: z.string().min(1, "--host needs an address"),
  "allow-host": z.array(z.string().regex(/^[A-Za-z0-9.-]+(:\d+)?$/, "--allow-host takes a host name, optionally with :port")).default([]),
});

/** Options every serving command takes (serve, demo). */
export function serveOptions<T>(y: Argv<T>, dataDir: { default: string; describe: string }) {
  return y
    .option("data-dir", { type: "string", default: dataDir.default, describe: dataDir.describe })
    .option("port", { type: "number", default: 7070, describe: "TCP port (0 picks a free one)" })
    .option("host", {
      type: "string",
      default: "127.0.0.1",
      describe: "address to bind; anything but loopback serves the incidents to the network and requires the access token printed at start",
    })
    .option("allow-host", { type: "string", array: true, describe: "another name requests may use for this server (a DNS name, a proxy); repeatable" });
}

/** What `serve` and `demo` print at start: where to open, and loudly, when the network can reach it. */
export function announce(server: RunningServer, args: z.infer<typeof ServeArgs>, what: string): void {
  process.stdout.write(`${what} at ${server.openUrl}\n`);
  if (server.token === null) return;
  process.stderr.write(
    [
      "",
      `WARNING: kvrewind is listening on ${args.host}:${new URL(server.url).port}: anyone who can reach this machine can reach it.`,
      "Every incident's logs are served to whoever holds its access token; the token is required on every request.",
      `  access token: ${server.token}`,
      `  open:         ${server.openUrl}`,
      "Keep the token private. To serve this machine only, drop --host (it binds 127.0.0.1).",
      "",
    ].join("\n") + "\n",
  );
}

/** How often a demo looks whether the process that started it is still there. */
const PARENT_CHECK_MS = 250;

/**
 * Closes the server and exits on SIGINT or SIGTERM (a second one ends the
 * process at once) and, `withParent`, also when the process that started this
 * one is gone: npm killed, or stopped without passing the signal on, leaves
 * no server serving and no background job running.
 */
export function stopWhenAsked(server: Promise<RunningServer>, withParent: boolean): void {
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void server.then((s) => s.close(), () => undefined).finally(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  if (!withParent) return;
  const parent = process.ppid;
  // An orphan is adopted by another process (init or a subreaper): its parent id changes.
  setInterval(() => process.ppid !== parent && stop(), PARENT_CHECK_MS).unref();
}

/** Command-line options checked by a schema, with the first problem as a one-line error. */
export function parseArgs<T extends z.ZodType>(schema: T, argv: unknown): z.infer<T> {
  const parsed = schema.safeParse(argv);
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => i.message).join("; "));
  return parsed.data;
}

export const serveCommand: CommandModule = {
  command: "serve",
  describe: "serve the web UI over a data directory of incidents",
  builder: (y) => serveOptions(y, { default: "data", describe: "where incidents are kept (created if missing)" }),
  handler: async (argv) => {
    const args = parseArgs(ServeArgs, argv);
    const starting = startServer({ dataDir: args["data-dir"], port: args.port, host: args.host, allowHosts: args["allow-host"] });
    // A server outlives the shell that started it (`kvrewind serve &`); it stops when asked.
    stopWhenAsked(starting, false);
    announce(await starting, args, `kvrewind serving ${args["data-dir"]}`);
  },
};
