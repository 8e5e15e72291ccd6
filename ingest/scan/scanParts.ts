// A large file is scanned in parts on both scan workers, as the load parses
// it (ingest/load/loadPlan.ts), instead of on one while the other waits: the
// parts are byte ranges cut at line starts, each scanned on its own
// (ingest/scan/scan.ts: its anchors, dates, identity and line count), and part 0
// also hashes the rest of the file. A format whose scan needs the whole file
// (a binary dump, a Flight Recorder document) is scanned whole by part 0.
// The merged report is what one scan of the whole file gives, except that
// each part samples its anchor lines afresh (FULL_ANCHOR_LINES in scan.ts).

import { lineStartsEvery } from "../inputs/lines.js";
import type { ScanPart, ScanReport, ScanRequest } from "./scan.js";
import { resolveIdentity } from "./sourceIdentity.js";

/** Files from this size up are scanned in parts. */
export const SCAN_SPLIT_BYTES = 48 * 1024 * 1024;

/** One scan request per part: a file below `splitBytes` is one whole part. */
export function scanRequestsOf(req: ScanRequest, bytes: number, parts: number, splitBytes = SCAN_SPLIT_BYTES): ScanRequest[] {
  if (parts < 2 || bytes < splitBytes) return [req];
  const starts = lineStartsEvery(req.plainPath, bytes, Math.ceil(bytes / parts));
  return starts.map((startByte, index): ScanRequest => {
    const part: ScanPart = { index, startByte, endByte: starts[index + 1] ?? null };
    return { ...req, part };
  });
}

/** The report of a file from the reports of its parts, in file order. */
export function mergeScanParts(req: ScanRequest, parts: readonly ScanReport[]): ScanReport {
  const head = parts[0]!;
  if (parts.length === 1 || head.rejection !== null) return head;
  const dated = parts.filter((p) => p.dated !== null).map((p) => p.dated!);
  const contents = parts.map((p) => p.content);
  const identity = resolveIdentity(req, contents);
  return {
    ...head,
    lines: parts.reduce((n, p) => n + p.lines, 0),
    ...identity,
    domain: identity.host ?? `src:${req.displayPath}`,
    dated: dated.length === 0 ? null : { firstUs: dated[0]!.firstUs, lastUs: Math.max(dated[0]!.firstUs, dated[dated.length - 1]!.lastUs) },
    content: {
      host: contents.find((c) => c.host !== null)?.host ?? null,
      role: contents.find((c) => c.role !== null)?.role ?? null,
      ranks: [...new Set(contents.flatMap((c) => c.ranks))],
    },
  };
}
