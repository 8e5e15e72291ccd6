// What the parse of a source learns about it besides its events, read from
// the same bytes and events in the same pass: its content hash, what its
// content says of who wrote it (ingest/sources/sourceIdentity.ts), the dates it
// spans (ingest/sources/dateSpan.ts), its clock anchors (ingest/sources/clock.ts)
// and its kernel lines' clocks (ingest/formats/log/kernelClock.ts).
// The parse runs before the source's identity is decided (that needs every
// source: ingest/pipeline.ts), so its events carry only what their own lines
// say; ingest/load/runs.ts gives the rows the source's identity afterwards.

import { createHash, type Hash } from "node:crypto";
import type { ParsedEvent } from "../../domain/event.js";
import type { AnchorAgg } from "../../domain/clockAnchors.js";
import type { FormatName } from "../formats/format.js";
import { identityLines, isLogFormat } from "../formats/index.js";
import { anchorsOf, AnchorTable } from "../sources/clock.js";
import { DateSpan } from "../sources/dateSpan.js";
import type { DatedKernelLine, PlainKernelLine } from "../../domain/kernelLines.js";
import { combineContents, ContentIdentityReader, type ContentIdentity } from "../sources/sourceIdentity.js";

/**
 * The clock domain a source's anchors are gathered under when their event
 * names no host: the source's own, decided only after the parse
 * (store/anchors.ts addAnchors renames it).
 */
export const OWN_DOMAIN = "\u0000own";

/**
 * Anchors taken from every event of a source (or part) before sampling
 * starts. Past them, only events stamped in a second ending in 0 give
 * anchors: both sides of a room fall in the same seconds (clocks differ by
 * milliseconds), so one tenth of the rooms still pair up, at a tenth of the
 * cost of the anchor table.
 */
const FULL_ANCHOR_EVENTS = 5_000;

export interface SourceFacts {
  /** Empty for a part of a file: the file is hashed whole elsewhere (ingest/load/workers.ts). */
  sha256: string;
  /** Bytes hashed. */
  bytes: number;
  content: ContentIdentity;
  /** Logs: the first and last dates written, read in the file's zone; null when none. */
  dated: { firstUs: number; lastUs: number } | null;
  anchors: AnchorAgg[];
  /** Its kernel records' clocks, the latest MAX_KERNEL_LINES of each kind, for the anchors of plain dmesg files (ingest/sources/kernelBoot.ts). */
  kernel: KernelLines;
}

export interface KernelLines {
  plain: PlainKernelLine[];
  dated: DatedKernelLine[];
}

/** Kernel lines kept per kind: a kernel ring holds tens of thousands of lines; the latest are those of the incident. */
const MAX_KERNEL_LINES = 50_000;

function keepLatest<T>(list: T[], item: T): void {
  list.push(item);
  if (list.length >= 2 * MAX_KERNEL_LINES) list.splice(0, list.length - MAX_KERNEL_LINES);
}

function latest<T>(list: T[]): T[] {
  return list.length > MAX_KERNEL_LINES ? list.slice(list.length - MAX_KERNEL_LINES) : list;
}

/** Gathers a source's facts as its parse reads chunks and hands out events. */
export class FactsReader {
  private readonly hash: Hash | null;
  private hashed = 0;
  private readonly identity = new ContentIdentityReader();
  private readonly dates: DateSpan | null;
  private readonly identityLines: number;
  private readonly anchors = new AnchorTable();
  private anchored = 0;
  private readonly kernel: KernelLines = { plain: [], dated: [] };

  constructor(
    private readonly format: FormatName,
    private readonly tzOffsetMinutes: number,
    hashing: boolean,
  ) {
    this.hash = hashing ? createHash("sha256") : null;
    this.dates = isLogFormat(format) ? new DateSpan() : null;
    this.identityLines = identityLines(format);
  }

  /** Raw bytes as read, in file order. */
  readonly onBytes = (bytes: Uint8Array): void => {
    this.hash?.update(bytes);
    this.hashed += bytes.length;
  };

  onText(text: string): void {
    this.dates?.add(text);
  }

  onEvent(ev: ParsedEvent): void {
    if (ev.line <= this.identityLines) this.identity.fromEvent(ev);
    const k = ev.kernelLine;
    if (k !== undefined) {
      if ("plain" in k) keepLatest(this.kernel.plain, k.plain);
      else keepLatest(this.kernel.dated, k.dated);
    }
    // Sampled out before its anchors are built: past the first FULL_ANCHOR_EVENTS, nine events in ten would build them for nothing.
    if (this.anchored >= FULL_ANCHOR_EVENTS && Math.floor(ev.tsUs / 1_000_000) % 10 !== 0) return;
    const anchors = anchorsOf(ev);
    if (anchors.length === 0) return;
    this.anchored++;
    this.anchors.addAll(anchors, ev, ev.host ?? OWN_DOMAIN, stampQuantumUs(this.format, ev.text));
  }

  result(): SourceFacts {
    return {
      sha256: this.hash?.digest("hex") ?? "",
      bytes: this.hashed,
      content: this.identity.result(),
      dated: this.dates?.span(this.tzOffsetMinutes) ?? null,
      anchors: this.anchors.drain(),
      kernel: { plain: latest(this.kernel.plain), dated: latest(this.kernel.dated) },
    };
  }
}

/** How finely a source stamps its events: logs to the millisecond with SGLANG_LOG_MS, else to the second (§1). */
function stampQuantumUs(format: FormatName, text: string): number {
  if (!isLogFormat(format)) return 1;
  const at = text.indexOf("[");
  return at >= 0 && text.charCodeAt(at + 20) === 46 /* . */ ? 1000 : 1_000_000;
}

/** A cut file's facts from its parts', in file order (the hash is the file's, taken apart). */
export function combineFacts(parts: readonly SourceFacts[], sha256: string, bytes: number): SourceFacts {
  const dated = parts.filter((p) => p.dated !== null).map((p) => p.dated!);
  return {
    sha256,
    bytes,
    content: combineContents(parts.map((p) => p.content)),
    dated: dated.length === 0 ? null : { firstUs: dated[0]!.firstUs, lastUs: Math.max(dated[0]!.firstUs, dated[dated.length - 1]!.lastUs) },
    anchors: parts.flatMap((p) => p.anchors),
    kernel: { plain: latest(parts.flatMap((p) => p.kernel.plain)), dated: latest(parts.flatMap((p) => p.kernel.dated)) },
  };
}
