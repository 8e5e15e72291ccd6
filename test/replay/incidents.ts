// Test support: the hand-written incidents under test/replay/inputs/, ingested
// by the real pipeline once per test run, each caller given its own copy of
// the fresh incident database, and a way to name an event by the file and line
// it came from (seqs depend on the merge; files and lines are what the
// expectations were written against).

import { fileURLToPath } from "node:url";
import { openIncident, type IncidentDb } from "../../store/db.js";
import { iterateEvents } from "../../store/read/events.js";
import { listSources } from "../../store/read/sources.js";
import { ingestedCopy } from "../sharedIncident.js";

/** From dist/test/replay/ back to the sources' inputs. */
const INPUTS = new URL("../../../test/replay/inputs/", import.meta.url);

export function inputDir(name: string): string {
  return fileURLToPath(new URL(`${name}/`, INPUTS));
}

/** The case as the ingest left it (ingested once per test run, test/sharedIncident.ts), in a database of the caller's own. */
export async function ingestCase(name: string): Promise<{ db: IncidentDb; path: string }> {
  const path = await ingestedCopy({ paths: [inputDir(name)] });
  return { db: openIncident(path), path };
}

/** The seq of the event from line `line` of the source whose path ends with `file` (like "d0/decode-probe.jsonl"). */
export function seqOf(db: IncidentDb, file: string, line: number): number {
  const paths = new Map(listSources(db).map((s) => [s.id, s.path]));
  const rows = [...iterateEvents(db)].filter((e) => e.line === line).map((e) => ({ seq: e.seq, path: paths.get(e.sourceId)! }));
  const hits = rows.filter((r) => r.path.replaceAll("\\", "/").endsWith(file));
  if (hits.length !== 1) throw new Error(`${file}:${line} names ${hits.length} events`);
  return hits[0]!.seq;
}

/** "file:line" of a cited event, with the file cut to its last two path parts. */
export function at(ref: { source: string; line: number }): string {
  return `${ref.source.replaceAll("\\", "/").split("/").slice(-2).join("/")}:${ref.line}`;
}
