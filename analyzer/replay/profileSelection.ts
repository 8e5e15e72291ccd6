// Which SGLang behaviour to replay an incident against, and why: every field
// of the Profile comes from the --profile flag, else a `config` record, else
// log evidence (logSigns.ts), else the model's version-derived rule or the
// SGLang default, and the choice names the events it rests on.

import type { Profile } from "../model/api.js";
import type { Backend } from "../../domain/vocabulary.js";
import { defaultProfile, firstRelease, latestRelease, SGLANG_RELEASES, settingsFromConfig } from "../model/profile.js";
import type { IncidentDb } from "../../store/db.js";
import { LogKind } from "../../domain/kinds.js";
import { configRecords } from "../../store/read/records.js";
import { eventRefs, type EventRef } from "./eventRefs.js";
import type { Sign } from "./logSigns.js";
import { profileSigns } from "./derivedSigns.js";
import { flagKey, parseProfileFlag } from "./profileFlag.js";

export type ProfileOrigin = "flag" | "config" | "log" | "derived" | "default";

export interface ProfileReason {
  field: keyof Profile;
  value: unknown;
  origin: ProfileOrigin;
  why: string;
  evidence: EventRef[];
}

export interface ProfileChoice {
  profile: Profile;
  reasons: ProfileReason[];
  /** Evidence that disagrees with the choice (or with other evidence), in words. */
  conflicts: string[];
}

/** Fields the model derives from backend and version (model/profile.ts) rather than fixed defaults. */
const VERSION_DERIVED = new Set<keyof Profile>([
  "transferQueues", "queueRouting", "abortHandling", "decodeSendsAbort", "prefillBootstrapTimeout",
  "drainsBeforeTimeout", "indexKRaggedAccessorsWait",
]);

interface Stated {
  value: unknown;
  origin: "flag" | "config" | "log";
  why: string;
  seqs: number[];
}

export function selectProfile(db: IncidentDb, flag?: string): ProfileChoice {
  const stated = new Map<keyof Profile, Stated>();
  const conflicts: string[] = [];
  const fromFlag = flag ? parseProfileFlag(flag) : {};
  for (const [field, value] of Object.entries(fromFlag) as [keyof Profile, unknown][]) {
    stated.set(field, { value, origin: "flag", why: `--profile ${flagKey(field)}`, seqs: [] });
  }
  applyConfig(db, stated, conflicts);
  applySigns(profileSigns(db), stated, conflicts);

  const backend = (stated.get("backend")?.value as Backend | undefined) ?? "mooncake";
  const version = (stated.get("version")?.value as string | undefined) ?? latestRelease();
  const given: Partial<Profile> = { backend, version };
  for (const [field, s] of stated) (given as Record<string, unknown>)[field] = s.value;
  const profile = defaultProfile({ ...given, backend, version });

  const refs = eventRefs(db, [...stated.values()].flatMap((s) => s.seqs));
  const reasons: ProfileReason[] = (Object.keys(profile) as (keyof Profile)[]).map((field) => {
    const s = stated.get(field);
    if (s) return { field, value: profile[field], origin: s.origin, why: s.why, evidence: s.seqs.map((q) => refs.get(q)!).filter(Boolean) };
    return { field, value: profile[field], ...unstated(field, backend, version) };
  });
  return { profile, reasons, conflicts };
}

function unstated(field: keyof Profile, backend: Backend, version: string): Pick<ProfileReason, "origin" | "why" | "evidence"> {
  if (field === "backend") return { origin: "default", why: "no evidence; SGLang's default --disaggregation-transfer-backend (docs/protocol.md §10)", evidence: [] };
  if (field === "version") return { origin: "default", why: `no evidence; the latest release the reference covers (docs/protocol.md §0)`, evidence: [] };
  if (VERSION_DERIVED.has(field)) return { origin: "derived", why: `the model's rule for ${backend} v${version}`, evidence: [] };
  return { origin: "default", why: "no evidence; SGLang's default (docs/protocol.md §10)", evidence: [] };
}

/**
 * `config` records, the first in seq order winning, except that HiCache is on
 * when any server's record says so (the race needs only one HiCache server).
 * Records that disagree with the choice are reported once per field and value.
 */
function applyConfig(db: IncidentDb, stated: Map<keyof Profile, Stated>, conflicts: string[]): void {
  const rows = configRecords(db, LogKind.config);
  const fromConfig = new Map<keyof Profile, Map<unknown, number[]>>();
  for (const row of rows) {
    const settings = settingsFromConfig(row.attrs);
    for (const [field, value] of Object.entries(settings) as [keyof Profile, unknown][]) {
      let values = fromConfig.get(field);
      if (!values) fromConfig.set(field, (values = new Map()));
      values.set(value, [...(values.get(value) ?? []), row.seq]);
    }
  }
  for (const [field, values] of fromConfig) {
    const prior = stated.get(field);
    const chosen = prior ? prior.value : field === "hicache" && values.has(true) ? true : values.keys().next().value;
    if (!prior) {
      const seqs = values.get(chosen)!;
      const records = seqs.length > 1 ? `${seqs.length} config records state` : "config record states";
      stated.set(field, { value: chosen, origin: "config", why: `${records} ${flagKey(field)}=${String(chosen)}`, seqs: seqs.slice(0, 8) });
    }
    for (const [value, seqs] of values) {
      if (value === chosen) continue;
      const which = seqs.length > 3 ? `seq ${seqs.slice(0, 3).join(", ")} and ${seqs.length - 3} more` : `seq ${seqs.join(", ")}`;
      conflicts.push(`${flagKey(field)}: config records (${which}) say ${String(value)}; ${prior ? `the ${prior.origin}` : "chosen"}: ${String(chosen)}`);
    }
  }
}

/** Log signs fill what neither the flag nor a config record states, and contradict it loudly when they disagree. */
function applySigns(signs: Sign[], stated: Map<keyof Profile, Stated>, conflicts: string[]): void {
  for (const field of ["backend", "overlap", "hicache", "hostIndexKPageStride"] as const) {
    const pro = signs.filter((s) => s[field] !== undefined);
    if (pro.length === 0) continue;
    const values = new Set(pro.map((s) => s[field]));
    const prior = stated.get(field);
    if (prior) {
      for (const s of pro) if (s[field] !== prior.value) conflicts.push(`${flagKey(field)}: seq ${s.seq} (${s.why}) says ${String(s[field])}, the ${prior.origin} says ${String(prior.value)}`);
      continue;
    }
    if (values.size > 1) conflicts.push(`${flagKey(field)}: log evidence disagrees (${pro.map((s) => `seq ${s.seq}: ${String(s[field])}`).join(", ")}); the first is used`);
    const first = pro[0]!;
    stated.set(field, { value: first[field], origin: "log", why: pro.filter((s) => s[field] === first[field]).map((s) => s.why).join("; "), seqs: pro.filter((s) => s[field] === first[field]).map((s) => s.seq) });
  }
  const backend = stated.get("backend")?.value as Backend | undefined;
  const bounds = signs.flatMap((s): { seq: number; why: string; min?: string; max?: string }[] => {
    const out: { seq: number; why: string; min?: string; max?: string }[] = [];
    if (s.versionMin) out.push({ seq: s.seq, why: s.why, min: s.versionMin });
    if (s.versionMax) out.push({ seq: s.seq, why: s.why, max: s.versionMax });
    if (s.versionMinIf && s.versionMinIf.backend === backend) out.push({ seq: s.seq, why: s.why, min: s.versionMinIf.version });
    return out;
  });
  if (bounds.length === 0) return;
  const lo = bounds.filter((b) => b.min).reduce((v, b) => (cmp(b.min!, v) > 0 ? b.min! : v), firstRelease());
  const hi = bounds.filter((b) => b.max).reduce((v, b) => (cmp(b.max!, v) < 0 ? b.max! : v), latestRelease());
  const describe = bounds.map((b) => `${b.min ? `≥ ${b.min}` : `≤ ${b.max}`}: ${b.why}`).join("; ");
  const prior = stated.get("version");
  if (prior) {
    if (cmp(prior.value as string, lo) < 0 || cmp(prior.value as string, hi) > 0) {
      conflicts.push(`version: the ${prior.origin} says ${String(prior.value)}, the logs allow [${lo}, ${hi}] (${describe})`);
    }
    return;
  }
  if (cmp(lo, hi) > 0) conflicts.push(`version: log evidence contradicts itself (lowest ${lo} > highest ${hi}: ${describe}); the upper bound is used`);
  // A version read from logs is one of the releases the reference covers (pd §0).
  const chosen = [...SGLANG_RELEASES].reverse().find((r) => cmp(r, hi) <= 0 && (cmp(lo, hi) > 0 || cmp(r, lo) >= 0)) ?? hi;
  stated.set("version", {
    value: chosen,
    origin: "log",
    why: `the latest release within [${lo}, ${hi}] the logs allow (${describe})`,
    seqs: [...new Set(bounds.map((b) => b.seq))].sort((a, b) => a - b),
  });
}

function cmp(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
