// Container wrappers (DESIGN.md "Inputs"): the envelope a runtime or a collector puts around every line a process
// wrote — Kubernetes CRI, Docker's json-file, `kubectl logs --timestamps` and `--prefix`, journald's short forms,
// `-o json` and `-o json-pretty`, `docker compose logs`, `stern`, Loki's `logcli query`, CloudWatch's `aws logs tail`,
// a log shipper's JSON records (Fluent Bit, Fluentd, Vector, Filebeat), moreutils' `ts`, Slurm's `srun --label`,
// `pdsh`, and one of these inside another (./nested.ts). A wrapper is decided once per file (from its head) and
// stripped from each line before the line's own dialect is read; its time is used when the inner line has none, and
// the raw line is what the event keeps.

import type { TorchStamp } from "../sglang/torchLines.js";
import { awsLogsTail } from "./awsLogsTail.js";
import { compose } from "./compose.js";
import { cri } from "./cri.js";
import { dockerJson } from "./dockerJson.js";
import { journald } from "./journald.js";
import { journaldJson } from "./journaldJson.js";
import { journaldJsonPretty } from "./journaldJsonPretty.js";
import { kubectl } from "./kubectl.js";
import { kubectlPrefix } from "./kubectlPrefix.js";
import { logcli } from "./logcli.js";
import { moreutilsTs } from "./moreutilsTs.js";
import { nestedWrapper } from "./nested.js";
import { shipperJson } from "./shipperJson.js";
import { srunLabel } from "./srunLabel.js";
import { pdsh } from "./pdsh.js";
import { stern } from "./stern.js";

/** A wrapper, or one inside another (`aws-logs-tail>shipper-json`, ./nested.ts), as a source records it. */
export type WrapperId = WrapperName | `${WrapperName}>${WrapperName}`;

export type WrapperName = "cri" | "docker-json" | "kubectl" | "kubectl-prefix" | "journald" | "journald-json" | "journald-json-pretty" | "logcli" | "compose" | "stern" | "srun-label" | "pdsh" | "aws-logs-tail" | "shipper-json" | "moreutils-ts";

/** What unwrapping one line gives. */
export type Unwrapped =
  /**
   * The inner line, the wrapper's time (µs, UTC; -1 when it states none) and, for journald, kubectl's prefix, logcli, compose, stern, srun and pdsh,
   * the host it names; `kernel` where journald says the kernel wrote it, with the kernel's own stamp (µs since boot) where journald's JSON gives it;
   * `stamp`, a time of day without a year (syslog's), where that is all the wrapper states (`tsUs` is then -1).
   */
  | { kind: "line"; inner: string; tsUs: number; host?: string; kernel?: true; kernelSinceBootUs?: number; stamp?: TorchStamp }
  /**
   * A partial line (CRI `P`, docker without a final newline): its rest comes on the next lines. `cuts`: the line
   * opens a new one while the open one never closed (a json-pretty entry's `{` inside another), which end() hands
   * back first, named by why it was cut.
   */
  | { kind: "partial"; cuts?: string }
  /** The line is not in the wrapper's shape (a broken JSON line, a line written around the runtime). */
  | { kind: "foreign"; why: string }
  /** A line the tool that saved the log wrote of its own (journalctl's `-- Journal begins at … --`): kept as it stands, no error. */
  | { kind: "own" };

export interface LineUnwrapper {
  unwrap(line: string): Unwrapped;
  /** A partial line still open at the end of the file, as the inner line it makes. */
  end(): Unwrapped | null;
}

export interface Wrapper {
  name: WrapperId;
  /** True when a line is in this wrapper's shape (detection looks at the head's lines). */
  matches(line: string): boolean;
  /**
   * The wrapper prints an entry of several lines with its prefix on the first alone: the head is this wrapper's
   * when its first line and half its lines are in the shape, rather than the share every other wrapper needs.
   */
  continued?: true;
  create(): LineUnwrapper;
}

/** A wrapper of its own, not one inside another. */
export type SingleWrapper = Wrapper & { name: WrapperName };

/**
 * Most specific first: kubectl's `<time> <line>` also matches every CRI, logcli and `aws logs tail` line; a shipper's
 * record with Docker's fields first (`{"log":…,"stream":…,"time":…}`) is Docker's unless it carries a pod.
 */
export const WRAPPERS: readonly SingleWrapper[] = [cri, shipperJson, dockerJson, journaldJson, journaldJsonPretty, logcli, journald, awsLogsTail, moreutilsTs, kubectl, kubectlPrefix, compose, stern, srunLabel, pdsh];

/** Lines of the head looked at, and the share of them that must be in a wrapper's shape. */
const DETECT_LINES = 50;
const DETECT_SHARE = 0.8;
const CONTINUED_SHARE = 0.5;

/**
 * Wrappers that may sit inside another. Not kubectl's bare `<time> ` (inside an envelope, a line that opens with a
 * time is more likely its program's own), nor pdsh's `<node>: ` (a kernel's `IPv6: …` in journald reads so).
 */
const INNER_WRAPPERS = WRAPPERS.filter((w) => w !== kubectl && w !== pdsh);
/** An envelope inside another repeats on every line: a line or two in that shape is no evidence of one. */
const INNER_MIN_LINES = 3;

/** The wrapper of a file from the lines of its head, or null when its lines are bare; one inside it is found in turn. */
export function detectWrapper(headLines: readonly string[]): Wrapper | null {
  const lines = headLines.filter((l) => l.trim() !== "").slice(0, DETECT_LINES);
  const outer = wrapperOfLines(lines, WRAPPERS);
  if (outer === null) return null;
  const u = outer.create();
  // The kernel's own lines (journald's `kernel` identifier) are never wrapped again.
  const innerLines = lines.flatMap((l) => {
    const r = u.unwrap(l);
    return r.kind === "line" && r.kernel !== true && r.inner.trim() !== "" ? [r.inner] : [];
  });
  const inner = innerLines.length >= INNER_MIN_LINES ? wrapperOfLines(innerLines, INNER_WRAPPERS) : null;
  return inner === null ? outer : nestedWrapper(outer, inner);
}

function wrapperOfLines(lines: readonly string[], candidates: readonly SingleWrapper[]): SingleWrapper | null {
  if (lines.length === 0) return null;
  for (const w of candidates) {
    const n = lines.reduce((k, l) => k + (w.matches(l) ? 1 : 0), 0);
    if (n >= Math.ceil(lines.length * DETECT_SHARE)) return w;
    if (w.continued && w.matches(lines[0]!) && n >= Math.ceil(lines.length * CONTINUED_SHARE)) return w;
  }
  return null;
}

export function wrapperByName(id: WrapperId): Wrapper {
  const [outer, inner] = id.split(">").map(singleWrapper);
  return inner === undefined ? outer! : nestedWrapper(outer!, inner);
}

function singleWrapper(name: string): SingleWrapper {
  const w = WRAPPERS.find((x) => x.name === name);
  if (!w) throw new Error(`unknown wrapper ${name}`);
  return w;
}
