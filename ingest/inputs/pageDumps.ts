// Page dumps across a bundle (issue 15): a page-dump index (formats/pageDump)
// names the files holding its pages' bytes, relative to the index's own
// folder. Those files are binary; here they are found among the bundle's
// inputs (so they are read, not refused as binary), and after the load each
// record's page is read from them and stored with its provenance
// (store/pages.ts). A page that cannot be read — a file cut mid-page, a file
// the bundle lacks — is an error of the index naming the line, the file and
// the offset; every other page is kept.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { posix } from "node:path";
import type { ParsedEvent, ParseIssue } from "../../domain/event.js";
import { openDumpFile, readPage, type DumpFile, type DumpFileKind } from "../formats/pageDump/bytes.js";
import { pageDumpJsonl } from "../formats/pageDump/index.js";
import type { PageDumpAttrs } from "../formats/pageDump/record.js";
import type { InputFile } from "./inputs.js";
import type { IncidentDb } from "../../store/db.js";
import { insertPages, type NewPage } from "../../store/pages.js";

interface IndexRecord {
  line: number;
  attrs: PageDumpAttrs;
  /** The bytes' file among the inputs, when the bundle has it. */
  file: InputFile | undefined;
  /** The file as the record names it, resolved against the index's folder. */
  wanted: string;
}

export interface PageDumpIndex {
  index: InputFile;
  records: IndexRecord[];
}

/** The folder part of a display path: `a/b/index.jsonl` → `a/b/`, `bundle.tgz:index.jsonl` → `bundle.tgz:`. */
function folderOf(displayPath: string): string {
  const slash = displayPath.lastIndexOf("/");
  const colon = displayPath.lastIndexOf(":");
  return displayPath.slice(0, Math.max(slash, colon) + 1);
}

function resolveIn(folder: string, file: string): string {
  const colon = folder.lastIndexOf(":");
  const archive = colon >= 0 ? folder.slice(0, colon + 1) : "";
  const inner = posix.normalize(posix.join(folder.slice(archive.length) || ".", file));
  return archive + (inner.startsWith("./") ? inner.slice(2) : inner);
}

function indexRecords(index: InputFile): ParsedEvent[] {
  const parser = pageDumpJsonl.createParser({ sourcePath: index.displayPath, tzOffsetMinutes: 0 });
  const out: ParsedEvent[] = [];
  const issues: ParseIssue[] = [];
  readFileSync(index.plainPath, "utf8").split(/\r?\n/).forEach((text, i) => parser.line(text, i + 1, out, issues));
  return out;
}

/** Reads each index and finds the files it names among `files` (by display path). */
export function planPageDumps(indexes: readonly InputFile[], files: readonly InputFile[]): PageDumpIndex[] {
  const byPath = new Map(files.map((f) => [f.displayPath, f]));
  return indexes.map((index) => {
    const folder = folderOf(index.displayPath);
    const records = indexRecords(index).map((ev) => {
      const attrs = ev.attrs as unknown as PageDumpAttrs;
      const wanted = resolveIn(folder, attrs.file);
      return { line: ev.line, attrs, wanted, file: byPath.get(wanted) };
    });
    return { index, records };
  });
}

/** The display paths of the files the indexes read their pages from. */
export function pageByteFiles(plans: readonly PageDumpIndex[]): Set<string> {
  return new Set(plans.flatMap((p) => p.records.flatMap((r) => (r.file ? [r.file.displayPath] : []))));
}

export type PageBytesFormat = `page-bytes-${DumpFileKind}`;

/** A source's format for a file of page bytes: page-bytes-bin, page-bytes-npy, page-bytes-safetensors. */
export function pageBytesFormat(kind: DumpFileKind): PageBytesFormat {
  return `page-bytes-${kind}`;
}

/** A file of page bytes an ingested index read, as a source of the incident (its provenance). */
export interface PageByteSource {
  path: string;
  kind: DumpFileKind;
  bytes: number;
  sha256: string;
  /** Pages read from it. */
  pages: number;
  /** The index that read it. */
  index: InputFile;
}

export interface StoredPageDumps {
  /** Each index source's errors, by source id. */
  issues: Map<number, ParseIssue[]>;
  /** The byte files read, in the order first read. */
  files: PageByteSource[];
}

/** Reads and stores the pages of each index that was ingested (`sourceIdOf` its source id). */
export function storePageDumps(db: IncidentDb, plans: readonly PageDumpIndex[], sourceIdOf: (index: InputFile) => number | undefined): StoredPageDumps {
  const issues = new Map<number, ParseIssue[]>();
  const opened = new Map<string, DumpFile | string>();
  const files = new Map<string, PageByteSource>();
  for (const plan of plans) {
    const sourceId = sourceIdOf(plan.index);
    if (sourceId === undefined) continue;
    const errors: ParseIssue[] = [];
    const pages: NewPage[] = [];
    for (const r of plan.records) {
      const file = r.file ? open(opened, r.file) : `${r.wanted}: not among the inputs`;
      const bytes = typeof file === "string" ? file : readPage(file, r.wanted, r.attrs);
      if (typeof bytes === "string") {
        errors.push({ line: r.line, message: `page not read: ${bytes}` });
        continue;
      }
      pages.push({ sourceId, line: r.line, file: r.wanted, offset: r.attrs.offset, bytes });
      const f = file as DumpFile;
      const source = files.get(r.wanted) ?? { path: r.wanted, kind: f.kind, bytes: f.bytes.length, sha256: createHash("sha256").update(f.bytes).digest("hex"), pages: 0, index: plan.index };
      source.pages++;
      files.set(r.wanted, source);
    }
    insertPages(db, pages);
    if (errors.length > 0) issues.set(sourceId, errors);
  }
  return { issues, files: [...files.values()] };
}

/** A dump file read once per ingest, or why it could not be (named by its display path). */
function open(cache: Map<string, DumpFile | string>, file: InputFile): DumpFile | string {
  let f = cache.get(file.displayPath);
  if (f === undefined) {
    try {
      f = openDumpFile(file.plainPath);
    } catch (e) {
      f = (e as Error).message.replace(file.plainPath, file.displayPath);
    }
    cache.set(file.displayPath, f);
  }
  return f;
}
