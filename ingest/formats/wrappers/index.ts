// Container wrappers (DESIGN.md "Inputs"): the envelope a runtime puts around
// every line a process wrote — Kubernetes CRI, Docker's json-file, `kubectl
// logs --timestamps` and `--prefix`, journald's short forms, `-o json` and `-o json-pretty`, `docker compose logs`, `stern`, Loki's `logcli query`, Slurm's `srun --label`, `pdsh`. A wrapper is decided once per file
// (from its head) and stripped from each line before the line's own dialect
// is read; its time is used when the inner line has none, and the raw line is
// what the event keeps.

import type { TorchStamp } from "../sglang/torchLines.js";
import { compose } from "./compose.js";
import { cri } from "./cri.js";
import { dockerJson } from "./dockerJson.js";
import { journald } from "./journald.js";
import { journaldJson } from "./journaldJson.js";
import { journaldJsonPretty } from "./journaldJsonPretty.js";
import { kubectl } from "./kubectl.js";
import { kubectlPrefix } from "./kubectlPrefix.js";
import { logcli } from "./logcli.js";
import { srunLabel } from "./srunLabel.js";
import { pdsh } from "./pdsh.js";
import { stern } from "./stern.js";

export type WrapperName = "cri" | "docker-json" | "kubectl" | "kubectl-prefix" | "journald" | "journald-json" | "journald-json-pretty" | "logcli" | "compose" | "stern" | "srun-label" | "pdsh";

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
  name: WrapperName;
  /** True when a line is in this wrapper's shape (detection looks at the head's lines). */
  matches(line: string): boolean;
  create(): LineUnwrapper;
}

/** Most specific first: kubectl's `<time> <line>` also matches every CRI and logcli line. */
export const WRAPPERS: readonly Wrapper[] = [cri, dockerJson, journaldJson, journaldJsonPretty, logcli, journald, kubectl, kubectlPrefix, compose, stern, srunLabel, pdsh];

/** Lines of the head looked at, and the share of them that must be in a wrapper's shape. */
const DETECT_LINES = 50;
const DETECT_SHARE = 0.8;

/** The wrapper of a file from the lines of its head, or null when its lines are bare. */
export function detectWrapper(headLines: readonly string[]): Wrapper | null {
  const lines = headLines.filter((l) => l.trim() !== "").slice(0, DETECT_LINES);
  if (lines.length === 0) return null;
  for (const w of WRAPPERS) {
    const n = lines.reduce((k, l) => k + (w.matches(l) ? 1 : 0), 0);
    if (n >= Math.ceil(lines.length * DETECT_SHARE)) return w;
  }
  return null;
}

export function wrapperByName(name: WrapperName): Wrapper {
  const w = WRAPPERS.find((x) => x.name === name);
  if (!w) throw new Error(`unknown wrapper ${name}`);
  return w;
}
