// The table checks itself as lnav checks a format on loading it: every sample
// line must be claimed by its own template and by no other, and a sample that
// fails says how far its pattern got (the longest prefix of the regex source
// that still matches there). Ids must be unique, and a row must hold together
// (a function head names its first characters, a pattern is sticky).

import { readIsoHead } from "../log/dialects/isoHead.js";
import { readVllmHead } from "../log/dialects/otherDialects.js";
import { readKernelHead, readNcclHead, readProcessTags, readRayHead, readSlurmHead } from "../log/dialects/otherDialects.js";
import { PrefixReader, PrefixResult } from "../sglang/prefix.js";
import { readTorchLine } from "../sglang/torchLines.js";
import { positional } from "./match.js";
import type { Dialect, LogTemplate, TemplateComponent } from "./template.js";
import { ucxMessageStart } from "./engines/ucx.js";

export interface TemplateProblem {
  id: string;
  problem: string;
}

/** The manager's identifier in a journal line, before its message. */
const SYSTEMD_IDENT = /^.*? systemd\[\d+\]: /;

/** Where a sample's message starts, after its dialect's prefix; -1 when the prefix is not there. */
export function messageStart(dialect: Dialect, line: string): number {
  if (dialect === "sglang") {
    const prefix = new PrefixReader(0);
    const found = prefix.read(line);
    if (found === PrefixResult.ok || found === PrefixResult.tagsOnly) return prefix.msgStart;
    // A Python logger's ISO-dated line beside SGLang's (LMCache's), behind a vLLM or Ray process tag: it takes SGLang's templates too.
    const at = readProcessTags(line)?.end ?? 0;
    const iso = readIsoHead(line.substring(at), 0);
    return iso === null ? -1 : at + iso.msgStart;
  }
  if (dialect === "kernel") return readKernelHead(line, 0)?.msgStart ?? -1;
  if (dialect === "slurm") return readSlurmHead(line)?.msgStart ?? -1;
  // systemd's messages, alone (`journalctl -o cat`) or after the manager's `systemd[1]: `.
  if (dialect === "systemd") return SYSTEMD_IDENT.exec(line)?.[0].length ?? 0;
  // supervisord's messages, alone or after its `%(asctime)s %(levelname)s ` prefix.
  if (dialect === "supervisord") return readIsoHead(line, 0)?.msgStart ?? 0;
  // The kubelet's event messages, alone.
  if (dialect === "kubelet") return 0;
  if (dialect === "ray") {
    const at = readProcessTags(line)?.end ?? 0;
    return at + (readRayHead(line.substring(at), 0)?.msgStart ?? 0);
  }
  // glog / absl lines (Mooncake, NIXL), NCCL's own, vLLM's logger's; UCX's own lines have no dialect prefix, only UCX's.
  return readTorchLine(line)?.msgStart ?? readNcclHead(line)?.msgStart ?? readVllmHead(line)?.msgStart ?? ucxMessageStart(line);
}

function headMatches(t: LogTemplate, line: string, at: number): boolean {
  return typeof t.head === "string" ? line.startsWith(t.head, at) : t.head(line, at);
}

function patternMatches(t: LogTemplate, line: string, at: number): boolean {
  t.pattern.lastIndex = at;
  return t.pattern.exec(line) !== null;
}

/** The templates of `candidates` whose head and pattern both match the message at `at`. */
export function claimants(candidates: readonly LogTemplate[], line: string, at: number): LogTemplate[] {
  return candidates.filter((t) => headMatches(t, line, at) && patternMatches(t, line, at));
}

/**
 * The longest prefix of the pattern's source that compiles and matches at
 * `at`, and the text it took; null when not even its first character does.
 */
export function partialMatch(pattern: RegExp, line: string, at: number): { pattern: string; matched: string } | null {
  const source = pattern.source;
  for (let n = source.length; n > 0; n--) {
    let re: RegExp;
    try {
      re = new RegExp(source.substring(0, n), pattern.flags);
    } catch {
      continue;
    }
    re.lastIndex = at;
    const m = re.exec(line);
    if (m !== null) return { pattern: source.substring(0, n), matched: m[0] };
  }
  return null;
}

function sampleProblem(t: LogTemplate, dialect: Dialect, sample: string, all: readonly LogTemplate[]): string | null {
  // A `print` to stdout (level `stdout`) or a bare template's line has no logger prefix: its message starts the line.
  const at = t.level === "stdout" || t.bare === true ? 0 : messageStart(dialect, sample);
  if (at < 0) return `sample has no ${dialect} line prefix: ${sample}`;
  if (!headMatches(t, sample, at)) return `head does not open sample: ${sample}`;
  if (!patternMatches(t, sample, at)) {
    const got = partialMatch(t.pattern, sample, at);
    const how = got === null ? "nothing of the pattern matched" : `matched as far as /${got.pattern}/ (it took ${JSON.stringify(got.matched)})`;
    return `pattern does not match sample ${JSON.stringify(sample)}: ${how}`;
  }
  const twin = positionalProblem(t, sample, at);
  if (twin !== null) return twin;
  const others = claimants(all, sample, at).filter((o) => o !== t);
  return others.length > 0 ? `sample is also claimed by ${others.map((o) => o.id).join(", ")}: ${sample}` : null;
}

/** The matcher runs the pattern without its capture names (./match.ts): it must take the same captures. */
function positionalProblem(t: LogTemplate, sample: string, at: number): string | null {
  const { re, index } = positional(t.pattern, t.id);
  t.pattern.lastIndex = at;
  re.lastIndex = at;
  const named = t.pattern.exec(sample);
  const plain = re.exec(sample);
  for (const [name, i] of index) {
    if (named?.groups?.[name] !== plain?.[i]) return `capture ${name} differs without its name: ${sample}`;
  }
  return null;
}

/** Every problem of the table; empty when it holds. */
export function tableProblems(components: readonly TemplateComponent[]): TemplateProblem[] {
  const out: TemplateProblem[] = [];
  const seen = new Set<string>();
  for (const c of components) {
    const dialectTemplates = components.filter((d) => d.dialect === c.dialect).flatMap((d) => d.templates);
    for (const t of c.templates) {
      if (seen.has(t.id)) out.push({ id: t.id, problem: "id used twice" });
      seen.add(t.id);
      if (!t.id.startsWith(`${c.name}.`)) out.push({ id: t.id, problem: `id is not under its component ${c.name}` });
      if (!t.pattern.sticky) out.push({ id: t.id, problem: "pattern is not sticky (y)" });
      if (typeof t.head !== "string" && t.firstChars === undefined) out.push({ id: t.id, problem: "a function head needs firstChars" });
      if (t.samples.length === 0) out.push({ id: t.id, problem: "no sample line" });
      for (const s of t.samples) {
        const problem = sampleProblem(t, c.dialect, s, dialectTemplates);
        if (problem !== null) out.push({ id: t.id, problem });
      }
    }
  }
  return out;
}
