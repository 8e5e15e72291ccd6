// What the parse of a source learns about it besides its events, read from
// the same bytes and events in the same pass: its content hash, what its
// content says of who wrote it (ingest/sources/sourceIdentity.ts), the dates it
// spans (ingest/sources/dateSpan.ts) and its clock anchors (ingest/sources/clock.ts).
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
  };
}
