// The ingest's inputs between their sniff and their store: each file that
// can be read is parsed once (ingest/load/workers.ts), and what the ingest
// decides of it from every source — who wrote it (its content, then its
// path and the flags, then the files of its folder: ingest/inputs/machines.ts),
// whether it is a duplicate (same path, same sha256), the dating hints of
// its undated records (ingest/sources/timeHints.ts) and the boot times of
// its plain dmesg lines (ingest/sources/kernelBoot.ts) — is decided here from the
// parses' facts. Dating hints are the one decision a parse needs before it
// starts: a log with a date in its first chunk gives its own; the others
// are parsed after, with hints from the sources parsed first, and parsed
// again in the rare case the hints decided at the end differ.

import type { Role } from "../../domain/vocabulary.js";
import type { DatingHints } from "../formats/log/dating.js";
import { takesDatingHints } from "../formats/index.js";
import type { InputFile } from "../inputs/inputs.js";
import { identityOf, shareFolderIdentity } from "../inputs/machines.js";
import type { PathReading } from "../inputs/pathIdentity.js";
import { inStreamOrder } from "../inputs/rotation.js";
import type { Sniff } from "../inputs/sniff.js";
import type { LoadProgress, LoadSource, ParsedSource } from "../load/loadStream.js";
import type { SplitOptions } from "../load/loadPlan.js";
import { runParse } from "../load/workers.js";
import type { RunStore } from "../load/runStore.js";
import { resolveIdentity, type SourceIdentity } from "./sourceIdentity.js";
import { datingHints, type TimeSpan } from "./timeHints.js";
import { kernelRunAnchors, type DatedKernelSource } from "./kernelBoot.js";
import { sourceKey } from "../../store/writer.js";

export interface Candidate {
  /** The file's place among the ingest's inputs (its rows' source until its id is known). */
  index: number;
  file: InputFile;
  sniff: Sniff & { format: NonNullable<Sniff["format"]> };
  /** What its path says, read with the rest of its bundle. */
  reading: PathReading;
  parsed?: ParsedSource;
  /** The dating hints it was parsed with (null: its format takes none). */
  hints?: DatingHints | null;
  /** Who wrote it, once decided; `domain` is its clock: its host, or the source itself. */
  identity?: SourceIdentity & { domain: string };
}

export interface ParseOptions {
  /** Where the parsed rows wait for the merge. */
  runs: RunStore;
  tzGiven: boolean;
  flagHost: string | null;
  flagRole: Role | null;
  loadWorkers?: number;
  loadSplit?: SplitOptions;
  onProgress: (progress: LoadProgress & { total: number }) => void;
}

/** What the ingest made of its parsed candidates: the kept ones in stream order, those named twice, those the incident holds already. */
export interface Decided {
  kept: Candidate[];
  namedTwice: Candidate[];
  known: Candidate[];
  fresh: Candidate[];
}

/** Hints a dated log gives itself, with no other source's help. */
function ownHints(c: Candidate): DatingHints | null | undefined {
  if (!takesDatingHints(c.sniff.format)) return null;
  if (c.sniff.firstDateUs === null) return undefined;
  return datingHints([{ host: null, dated: { firstUs: c.sniff.firstDateUs, lastUs: c.sniff.firstDateUs }, mtimeUs: c.sniff.mtimeUs }], null)[0]!;
}

/** Parses every candidate once (twice for the rare source whose hints changed), then decides what each is. */
export async function parseCandidates(candidates: Candidate[], opts: ParseOptions, known: ReadonlyMap<string, unknown>, stored: TimeSpan | null): Promise<Decided> {
  let total = candidates.reduce((n, c) => n + c.sniff.bytes, 0);
  let done = { bytes: 0, lines: 0 };
  const parse = async (list: { c: Candidate; hints: DatingHints | null }[]): Promise<void> => {
    // A source parsed again is read again: the progress counts its bytes twice, in its total too.
    total += list.reduce((n, { c }) => n + (c.parsed !== undefined ? c.sniff.bytes : 0), 0);
    const before = done;
    const sources = list.map(({ c, hints }) => loadSourceOf(c, hints, opts.tzGiven));
    const parsed = await runParse(sources, opts.runs, (p) => opts.onProgress({ bytes: before.bytes + p.bytes, lines: before.lines + p.lines, total }), opts.loadWorkers, opts.loadSplit);
    list.forEach(({ c, hints }, i) => {
      c.parsed = parsed[i]!;
      c.hints = hints;
      done = { bytes: done.bytes + c.parsed.facts.bytes, lines: done.lines + c.parsed.stats.lines };
    });
  };
  await parse(candidates.flatMap((c) => {
    const hints = ownHints(c);
    return hints === undefined ? [] : [{ c, hints }];
  }));
  for (let round = 0; ; round++) {
    const decided = decide(candidates, opts, known);
    const hints = hintsOf(decided.fresh, stored);
    const again = decided.fresh.flatMap((c) => {
      const h = hints.get(c) ?? null;
      return c.parsed === undefined || (c.hints !== h && !sameHints(c.hints ?? null, h)) ? [{ c, hints: h }] : [];
    });
    if (again.length === 0) return decided;
    if (round === 2) throw new Error(`the dating hints of ${again.map((a) => a.c.file.displayPath).join(", ")} do not settle`);
    await parse(again);
  }
}

/** The hints of the fresh sources that take them, as the incident's dated sources decide them. */
function hintsOf(fresh: readonly Candidate[], stored: TimeSpan | null): Map<Candidate, DatingHints> {
  const all = datingHints(fresh.map((c) => ({ host: c.identity!.host, dated: c.parsed?.facts.dated ?? null, mtimeUs: c.sniff.mtimeUs })), stored);
  const kernelLogs = datedKernelLogs(fresh);
  return new Map(
    fresh.flatMap((c, i) => {
      if (!takesDatingHints(c.sniff.format)) return [];
      const plain = c.parsed?.facts.kernel.plain ?? [];
      const dated = c.identity!.host === null ? undefined : kernelLogs.get(c.identity!.host);
      return [[c, plain.length > 0 && dated !== undefined ? { ...all[i]!, kernelRuns: kernelRunAnchors(plain, dated) } : all[i]!] as const];
    }),
  );
}

/** Each host's dated kernel logs (ingest/sources/kernelBoot.ts). */
function datedKernelLogs(fresh: readonly Candidate[]): Map<string, DatedKernelSource[]> {
  const byHost = new Map<string, DatedKernelSource[]>();
  for (const c of fresh) {
    const lines = c.parsed?.facts.kernel.dated ?? [];
    const host = c.identity!.host;
    if (host === null || lines.length === 0) continue;
    byHost.set(host, [...(byHost.get(host) ?? []), { path: c.file.displayPath, lines }]);
  }
  return byHost;
}

function sameHints(a: DatingHints | null, b: DatingHints | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.hasDatedLines === b.hasDatedLines &&
    a.anchorUs === b.anchorUs &&
    a.anchorOrigin === b.anchorOrigin &&
    a.yearNearUs === b.yearNearUs &&
    a.yearOrigin === b.yearOrigin &&
    a.yearAtMostUs === b.yearAtMostUs &&
    JSON.stringify(a.kernelRuns) === JSON.stringify(b.kernelRuns)
  );
}

/**
 * Who wrote each candidate and which are duplicates, from what the parses
 * read (a candidate not parsed yet reads as saying nothing of itself).
 */
function decide(candidates: readonly Candidate[], opts: ParseOptions, known: ReadonlyMap<string, unknown>): Decided {
  const seen = new Set<string>();
  const namedTwice: Candidate[] = [];
  const kept: Candidate[] = [];
  for (const c of candidates) {
    // The same path named twice is one source; the same bytes under another path (identical per-rank files) are evidence of their own.
    const key = c.parsed === undefined ? null : sourceKey(c.file.displayPath, c.parsed.facts.sha256);
    if (key !== null && seen.has(key)) namedTwice.push(c);
    else {
      if (key !== null) seen.add(key);
      kept.push(c);
    }
  }
  for (const c of kept) {
    const fallback = { identityPath: c.file.identityPath, pathIdentity: identityOf(c.reading), flagHost: opts.flagHost, flagRole: opts.flagRole };
    const identity = resolveIdentity(fallback, c.parsed === undefined ? [] : [c.parsed.facts.content]);
    c.identity = { ...identity, domain: identity.host ?? `src:${c.file.displayPath}` };
  }
  shareFolders(kept);
  const ordered = inStreamOrder(kept, (c) => c.file.displayPath);
  const isKnown = (c: Candidate) => c.parsed !== undefined && known.has(sourceKey(c.file.displayPath, c.parsed.facts.sha256));
  return { kept: ordered, namedTwice, known: ordered.filter(isKnown), fresh: ordered.filter((c) => !isKnown(c)) };
}

/**
 * The files of one machine's folder share what their content says of it
 * (ingest/inputs/machines.ts): a Flight Recorder dump takes the role of the
 * log beside it, a log the host its folder's probe records name.
 */
function shareFolders(candidates: readonly Candidate[]): void {
  const changes = shareFolderIdentity(
    candidates.map((c) => ({
      bundle: c.file.named ? -1 : c.file.bundle,
      reading: c.reading,
      contentHost: c.parsed?.facts.content.host ?? null,
      host: c.identity!.host,
      role: c.identity!.role,
    })),
  );
  for (const [i, change] of changes) {
    const id = candidates[i]!.identity!;
    if (change.role !== undefined) id.role = change.role;
    if (change.host !== undefined) id.domain = id.host = change.host;
  }
}

function loadSourceOf(c: Candidate, dating: DatingHints | null, tzGiven: boolean): LoadSource {
  return {
    sourceId: c.index,
    plainPath: c.file.plainPath,
    displayPath: c.file.displayPath,
    format: c.sniff.format,
    wrapper: c.sniff.wrapper,
    dating,
    tzGiven,
    tzOffsetMinutes: c.sniff.tzOffsetMinutes,
    bytes: c.sniff.bytes,
  };
}
