// The contract every input format module fulfils: recognise a file by its
// content, then turn its lines into canonical events one line at a time, so a
// file of any size streams through in constant memory.

import type { ParsedEvent, ParseIssue } from "../../domain/event.js";
import type { Role } from "../../domain/vocabulary.js";
import type { DatingHints, DatingTally } from "./log/dating.js";
import type { WrapperId } from "./wrappers/index.js";

/**
 * Log files share one parser (./log/logParser.ts); their format names say
 * what the file mostly is: SGLang's own log, a C++ glog/absl log (Mooncake,
 * NIXL, UCX), or text in no known dialect (kept line by line all the same).
 */
export type FormatName =
  | "sglang-log"
  | "glog"
  | "text"
  | "probe-jsonl"
  | "checksum-jsonl"
  | "checksum-csv"
  | "page-dump-jsonl"
  | "flight-recorder"
  | "flight-recorder-pickle"
  | "prometheus-text"
  | "prometheus-api-json"
  | "sglang-request-metrics"
  | "otlp-json"
  | "jaeger-json"
  | "sglang-crash-dump"
  | "kubectl-describe-pod"
  | "kubectl-describe-node"
  | "kubectl-events"
  | "kubectl-pods"
  | "kubernetes-objects";

/** What the ingest pipeline knows about a source before its lines are parsed. */
export interface ParseContext {
  /** The source's path as the user gave it (or its path inside an archive). */
  sourcePath: string;
  /** Host and role from the path or from flags; content may refine them per event. */
  host?: string;
  role?: Role;
  /** Offset of the zone the log timestamps were written in, in minutes east of UTC. */
  tzOffsetMinutes: number;
  /** The user named the zone (--tz): a wrapper's UTC stamps do not override it. */
  tzGiven?: boolean;
  /** Logs: the container wrapper around each line (ingest/formats/wrappers). */
  wrapper?: WrapperId;
  /** The rank of records whose line names none (a per-rank file: its path or its other lines say). */
  rank?: { dp?: number; pp?: number; tp?: number };
  /** Logs: times for records that carry none (./log/dating.ts). */
  dating?: DatingHints;
  /**
   * Logs, a part of a file read on its own (ingest/load/sourceParts.ts): the minutes
   * the file's own first wrapped prefix line decided to add to its prefix
   * times (./log/prefixZone.ts).
   */
  zoneFixMinutes?: number;
}

/** What a log parser inferred about times, to be added up over the parts of a file read in parts. */
export interface TimeTally extends DatingTally {
  /** The zone the prefix times were read in, when the wrapper's stamps decided it. */
  zoneNote: string | null;
}

export interface LineParser {
  /** Parse one line (without its line ending). Events and issues go into the sinks. */
  line(text: string, lineNo: number, out: ParsedEvent[], issues: ParseIssue[]): void;
  /** End of input: flush a record still open (a traceback, say). */
  end(out: ParsedEvent[], issues: ParseIssue[]): void;
  /**
   * After end(), for a parser that reads its file whole and holds more
   * events than fit in memory as objects at once (a day of Prometheus
   * samples): the next events, at most `max`, in order; false once none is left.
   */
  drain?(out: ParsedEvent[], max: number): boolean;
  /** After end(): where times the file did not state came from, when any were inferred. */
  timeOrigin?(): string | null;
  /** After end(): the counts behind timeOrigin(). */
  timeTally?(): TimeTally;
  /** Logs: the zone fix, once the file's lines decided it (ParseContext.zoneFixMinutes), else null. */
  readonly settledZoneFixMinutes?: number | null;
}

export interface InputFormat {
  name: FormatName;
  /** True when the first bytes of a file (decoded as UTF-8) are this format. */
  detect(head: string): boolean;
  createParser(ctx: ParseContext): LineParser;
  /** A binary format: true when a file's first bytes are it (tried before binary content is refused). */
  detectBytes?(head: Buffer): boolean;
  /**
   * A format whose files may be cut into parts parsed on their own (ingest/load/sourceParts.ts):
   * true when a parser started fresh at `line` (after `previous`, both without
   * their line ending) reads it and every line below it exactly as a parser
   * that read the whole file above it would.
   */
  isSeam?(previous: string, line: string, ctx: ParseContext): boolean;
  /** A binary format is read whole, not by lines. */
  parseBytes?(bytes: Buffer, ctx: ParseContext, out: ParsedEvent[], issues: ParseIssue[]): void;
}
