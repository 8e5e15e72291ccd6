// An ingest of files the incident holds already (the same bundle ingested
// again, the server's re-analysis of an upload): when every file is one of
// its sources — same path, same sha256 — nothing is parsed, and each is
// reported as the duplicate it is, with what was decided of it when it was
// ingested. Hashing a file is a read of its bytes, a fraction of a parse.
// Where one file is new, every file is parsed as usual: what the others'
// content says of their machine decides the new file's host
// (ingest/sources/candidates.ts).

import { fileSha256 } from "../inputs/fileHash.js";
import { inStreamOrder } from "../inputs/rotation.js";
import { sourceKey, type KnownSource } from "../../store/writer.js";
import type { Candidate } from "./candidates.js";

/**
 * Each candidate with its stored source, in stream order (as a parse would
 * report them), when every one is a file the incident holds and no path is
 * named twice; null otherwise.
 */
export async function allKnownAlready(candidates: readonly Candidate[], known: ReadonlyMap<string, KnownSource>): Promise<{ c: Candidate; stored: KnownSource }[] | null> {
  const paths = new Set(candidates.map((c) => c.file.displayPath));
  if (paths.size < candidates.length) return null;
  const byPath = new Map<string, KnownSource[]>();
  for (const k of known.values()) byPath.set(k.path, [...(byPath.get(k.path) ?? []), k]);
  // Paths and sizes first: a new file is found without reading any.
  if (!candidates.every((c) => byPath.get(c.file.displayPath)?.some((k) => k.bytes === c.sniff.bytes))) return null;
  const found: { c: Candidate; stored: KnownSource }[] = [];
  for (const c of candidates) {
    const stored = known.get(sourceKey(c.file.displayPath, await fileSha256(c.file.plainPath, c.sniff.bytes)));
    if (stored === undefined) return null;
    found.push({ c, stored });
  }
  return inStreamOrder(found, (f) => f.c.file.displayPath);
}
