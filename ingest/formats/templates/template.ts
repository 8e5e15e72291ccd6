// One log template as data (docs/log-templates.md is generated from these
// rows): where it was read, how it is recognised (a literal opening and a
// sticky regex with named captures), the event it makes, what the
// profile's version signs learn from it, and real lines it matches. The
// shape follows lnav's formats: a pattern with named fields, their types, and
// sample lines the loader checks against the pattern (./check.ts).

import type { ParsedEvent } from "../../../domain/event.js";
import type { Backend, Role } from "../../../domain/vocabulary.js";

/** How a capture becomes a value. */
export type FieldType =
  /** The text as printed. */
  | "text"
  /** A decimal number (Number()). */
  | "number"
  /** Python's `True` / `False`. */
  | "bool"
  /** A value Python may print as `None` (a room or rid of an `{x=}` f-string): absent then. */
  | "pyNone"
  /** A Python repr'd string, `'…'` or `"…"`, without its quotes; `None` is absent. */
  | "pyRepr"
  /** An RDMA opcode as Mooncake prints it: 0 READ, 1 WRITE. */
  | "rdmaOpcode";

/** A value read from the pattern's named capture `capture`, converted by `type`; absent when the capture did not take part. */
export interface Capture {
  readonly capture: string;
  readonly type: FieldType;
}

export function cap(capture: string, type: FieldType = "text"): Capture {
  return { capture, type };
}

export function isCapture(v: unknown): v is Capture {
  return typeof v === "object" && v !== null && "capture" in v && "type" in v;
}

/** The named captures of a match. */
export type Groups = Readonly<Record<string, string | undefined>>;

/**
 * A version or backend the presence of this template's event implies
 * (analyzer/replay/logSigns.ts). `since` / `until` name a change of the
 * profile's CHANGES (analyzer/model/profile.ts): the first release with it,
 * the last release without it.
 */
export interface TemplateSign {
  why: string;
  backend?: Backend;
  since?: string;
  until?: string;
  /** A lower bound that holds only when the backend turns out to be this one. */
  sinceIf?: { backend: Backend; change: string };
}

export interface LogTemplate {
  /** `component.name`, unique across the table. */
  readonly id: string;
  readonly level: string;
  /** The format string as the source prints it (`{x}` a value, `{x=}` Python's self-documenting f-string). */
  readonly format: string;
  /** File and function the format string was read in, and where (a commit, a release range, "index copies"). */
  readonly source: string;
  /** The releases that print it, where known. */
  readonly versions?: string;
  /** How the format was checked: `✔` read in the source, `✔ (docs/protocol.md §n)`, `◐` from the first reference only. */
  readonly checked: string;
  /** The message's literal opening words, or a test at the message's start (with `firstChars`). */
  readonly head: string | ((line: string, at: number) => boolean);
  /** The first characters a function head can start with (its dispatch buckets). */
  readonly firstChars?: string;
  /** Its lines carry no logger prefix, the message opening the line (a logger whose format is the message alone); a `stdout` level says so of a `print`. */
  readonly bare?: true;
  /** Sticky (`y`) regex with named captures, run at the message's start. */
  readonly pattern: RegExp;
  readonly kind: string;
  readonly role?: Role;
  /** The KVPoll state the line implies (0 Failed, 2 WaitingForInput). */
  readonly state?: number;
  readonly room?: Capture;
  readonly rid?: Capture;
  readonly chunk?: Capture;
  /** The event's attributes in order: constants, and captures (left out when they did not take part). */
  readonly attrs?: Readonly<Record<string, unknown>>;
  /** Fills what the captures alone do not say; a string names the part that did not decode (the line stays unparsed). */
  readonly refine?: (ev: ParsedEvent, g: Groups) => string | void;
  /** A hand reader that replaces the pattern's fill (the pattern still checks the samples): true when it filled the event. */
  readonly read?: (line: string, at: number, ev: ParsedEvent) => boolean;
  /** The name reported when the head matched and nothing did (a truncated line, or a format that drifted). */
  readonly truncated?: string;
  readonly signs?: readonly TemplateSign[];
  /** Real lines, whole as a log file holds them (prefix included). */
  readonly samples: readonly string[];
}

/** The dialects whose message templates a component belongs to (ingest/formats/log/messages.ts). */
export type Dialect = "sglang" | "engine" | "kernel" | "slurm" | "ray" | "systemd" | "supervisord" | "kubelet";

/** One source component's templates: one file under this folder. */
export interface TemplateComponent {
  readonly name: string;
  readonly dialect: Dialect;
  /** The heading of its section in docs/log-templates.md, and the prose under it. */
  readonly title: string;
  readonly intro: string;
  readonly templates: readonly LogTemplate[];
  /**
   * The C++ source files whose glog place (`client.cpp:380]`) names this
   * component, read in its repository: an error-level line from one of them
   * that no template reads is still this component's failure
   * (ingest/formats/log/unread.ts).
   */
  readonly sourceFiles?: RegExp;
  /** The transfer engine the component is part of: its untemplated error lines are that engine's `xfer.error`s. */
  readonly engine?: "mooncake" | "nixl" | "ucx";
}
