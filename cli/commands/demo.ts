// `kvrewind demo` (what `npm start` runs): every fixture bundle under
// fixtures/incidents/ ingested and analyzed into a data directory, then
// served. A bundle already built from the same files is kept as it is. It
// stops with the process that started it (serve.ts stopWhenAsked).

import { createHash } from "node:crypto";
import { cpSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import type { CommandModule } from "yargs";
import type { Registry } from "../../ui/server/registry.js";
import { startServer } from "../../ui/server/server.js";
import { announce, parseArgs, serveOptions, ServeArgs, stopWhenAsked } from "./serve.js";
import { packageFile } from "../../store/packageFiles.js";

const FIXTURES = packageFile("fixtures/incidents");
/** A bundle's answer key for the tests, not part of the incident. */
const NOT_INPUT = new Set(["expected.json"]);


export const demoCommand: CommandModule = {
  command: "demo",
  describe: "ingest and analyze the bundled fixture incidents, then serve them",
  builder: (y) => serveOptions(y, { default: "data", describe: "where the demo incidents are kept" }),
  handler: async (argv) => {
    const args = parseArgs(ServeArgs, argv);
    const starting = startServer({ dataDir: args["data-dir"], port: args.port, host: args.host, allowHosts: args["allow-host"] });
    // The demo lives as long as what started it (`npm start`), even when that is killed without passing the signal on.
    stopWhenAsked(starting, true);
    const server = await starting;
    const queued = importBundles(server.registry, (id) => server.jobs.enqueue(id));
    announce(server, args, "kvrewind demo");
    if (queued.length) {
      process.stderr.write(`building ${queued.length} incident(s) in the background: ${queued.join(", ")}\n`);
      void server.jobs.idle().then(() => process.stderr.write("all demo incidents are built\n"));
    }
  },
};

/** Registers each fixture bundle as an incident (unless built from the same files already); returns the ids queued. */
function importBundles(registry: Registry, enqueue: (id: string) => void): string[] {
  const queued: string[] = [];
  for (const name of readdirSync(FIXTURES).sort()) {
    const dir = join(FIXTURES, name);
    if (!statSync(dir).isDirectory()) continue;
    const key = bundleKey(dir);
    const existing = registry.get(name);
    if (existing?.inputKey === key && existing.status !== "failed") continue;
    if (existing) registry.remove(name);
    const record = registry.create(name, name);
    cpSync(dir, registry.inputDirOf(record.id), { recursive: true, filter: (src) => !NOT_INPUT.has(relative(dir, src)) });
    const files = listFiles(registry.inputDirOf(record.id));
    registry.update(record.id, {
      inputKey: key,
      inputFiles: files.length,
      inputBytes: files.reduce((n, f) => n + statSync(f).size, 0),
    });
    enqueue(record.id);
    queued.push(record.id);
  }
  return queued;
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name));
}

/** A hash of a bundle's input files (names and content). */
function bundleKey(dir: string): string {
  const hash = createHash("sha256");
  for (const file of listFiles(dir).sort()) {
    const name = relative(dir, file);
    if (NOT_INPUT.has(name)) continue;
    hash.update(name).update("\0").update(readFileSync(file)).update("\0");
  }
  return hash.digest("hex").slice(0, 32);
}
