// Profiles: which SGLang behaviour a replay reproduces, derived from backend and
// version per the version history in the reference, with explicit settings
// (from a `config` record or a --profile flag) winning over what is derived.

import type { AbortHandling, Profile } from "./api.js";
import type { Backend, IndexKDtype } from "../../domain/vocabulary.js";

/** A version as [major, minor, patch]; "v0.5.3rc2" reads as [0, 5, 3]. */
export type Version = readonly [number, number, number];

export function parseVersion(text: string): Version {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(text.trim());
  if (!m) throw new Error(`not an SGLang version: "${text}" (expected like 0.5.14)`);
  return [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
}

export function versionAtLeast(version: string, min: string): boolean {
  const a = parseVersion(version);
  const b = parseVersion(min);
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! > b[i]!;
  return true;
}

/**
 * The SGLang releases the reference covers (pd §0), oldest first. A new
 * release is added here (and its changes to CHANGES): profile selection,
 * the log signs' version bounds and the A/B diff read both from here.
 */
export const SGLANG_RELEASES: string[] = Array.from({ length: 16 }, (_, i) => `0.5.${i + 3}`);

export function latestRelease(): string {
  return SGLANG_RELEASES[SGLANG_RELEASES.length - 1]!;
}

export function firstRelease(): string {
  return SGLANG_RELEASES[0]!;
}

/** The covered release just before `version` (the last one without a change that `version` brought). */
export function releaseBefore(version: string): string {
  const older = SGLANG_RELEASES.filter((r) => !versionAtLeast(r, version));
  if (older.length === 0) throw new Error(`no covered SGLang release before ${version}`);
  return older[older.length - 1]!;
}

/**
 * A behaviour change and the first release that has it. `earliest` is set
 * where the release is inferred from PR dates: the change is known to be in
 * `since` and known not to be before `earliest`.
 */
export interface Change {
  since: string;
  earliest?: string;
  why: string;
}

/** Every version-dependent behaviour the model, the log signs and the A/B diff know of (pd = docs/protocol.md). */
export const CHANGES = {
  /** `Prefill batch,` / `Decode batch,` with a comma instead of a period, #9366 (pd §2.3) [inference: first after v0.5.3]. */
  batchLineComma: { since: "0.5.4", why: "#9366" },
  /** The prefill batch line prints the throughput last, the graph flag before it (pd §2.3). */
  batchLineThroughputLast: { since: "0.5.10", why: "pd §2.3" },
  /** The prefill batch line's `#pending-token` (pd §2.1). */
  pendingToken: { since: "0.5.11", why: "pd §2.1" },
  /** The prefill batch line's `#prealloc-req` becomes `#bootstrap-req` (pd §2.1). */
  bootstrapReqField: { since: "0.5.12", why: "pd §2.1" },
  /** NIXL transfer worker queues instead of inline transfers, #23967 (pd §6). */
  transferWorkerQueues: { since: "0.5.12", why: "#23967" },
  /**
   * The NIXL kv notification tag's fifth (source) field, #15027 (2025-12-13),
   * pd §6. [inference] The PR predates #23967 (first in v0.5.12) and postdates v0.5.3.
   */
  notifTagSourceField: { since: "0.5.12", earliest: "0.5.4", why: "#15027 [inference]" },
  /**
   * The ragged index-K accessors wait for their HiCache layer, #22811.
   * [inference] The reference dates the post-fix pool to May 2026 and later;
   * its companion #23346 merged 2026-05-07 like #23967, which is first in
   * v0.5.12, so v0.5.12 is taken as the first fixed release; a `config`
   * record or an explicit profile setting overrides this guess.
   */
  indexKRaggedAccessorsWait: { since: "0.5.12", why: "#22811 [inference]" },
  /** Decode's receiver sends ABORT to prefill on abort() and on waiting timeout; Mooncake answers ABORT_ACK, #27372 (pd §7.1, §7.2). */
  decodeSendsAbort: { since: "0.5.13", why: "#27372" },
  /** NIXL prefill handles an ABORT frame (Failed, no ACK) instead of failing the GUARD assertion, #30352 (pd §7.1). */
  nixlAbortHandler: { since: "0.5.16", why: "#30352" },
  /** PD prefill batch lines print `#optimistic-req`, #30951 (pd §2.1). */
  optimisticReq: { since: "0.5.16", why: "#30951" },
  /** NIXL routes a room to `sum(dst ports) % n` instead of `room % n`, #32025 (pd §7.2). */
  nixlPortSumRouting: { since: "0.5.17", why: "#32025" },
  /** NIXL's receiver drains notifications before its waiting-timeout check, #32267. */
  nixlDrainsBeforeTimeout: { since: "0.5.17", why: "#32267" },
  /** NIXL prefill times out in Bootstrapping, #34692 (pd §5.1). */
  nixlPrefillBootstrapTimeout: { since: "0.5.18", why: "#34692" },
} satisfies Record<string, Change>;

export type ChangeId = keyof typeof CHANGES;

/** Whether `version` has the change (for an inferred one: whether it surely has it). */
export function hasChange(version: string, change: ChangeId): boolean {
  return versionAtLeast(version, CHANGES[change].since);
}

/** The version bound a log showing the change implies: at least its earliest possible release. */
export function minVersionWith(change: ChangeId): string {
  const c: Change = CHANGES[change];
  return c.earliest ?? c.since;
}

/** The version bound a log lacking the change implies: at most the release before it surely shipped. */
export function maxVersionWithout(change: ChangeId): string {
  return releaseBefore(CHANGES[change].since);
}

/**
 * How the prefill bootstrap thread answers ABORT (pd §7.1, §7.2).
 * NIXL frames must start with GUARD; before the ABORT handler an ABORT frame
 * fails that assertion, which ends the thread. Decode only sends ABORT from
 * decodeSendsAbort, so before that the assertion is reached only by foreign
 * traffic. Mooncake handles ABORT (Failed + ABORT_ACK) since #27372.
 */
export function abortHandlingFor(backend: Backend, version: string): AbortHandling {
  if (backend === "mooncake") return "failed-ack";
  return hasChange(version, "nixlAbortHandler") ? "failed-no-ack" : "fatal-assert";
}

export function decodeSendsAbortFor(version: string): boolean {
  return hasChange(version, "decodeSendsAbort");
}

/**
 * Whether a NIXL prefill of this version dies on the ABORT its decode sends:
 * decode sends it, and prefill has no handler yet (pd §7.1). A string that is
 * not a version is not such a release.
 */
export function nixlPrefillDiesOnAbort(version: string): boolean {
  if (!/^v?\d+\.\d+/.test(version.trim())) return false;
  return decodeSendsAbortFor(version) && abortHandlingFor("nixl", version) === "fatal-assert";
}

/**
 * NIXL routes a room by its destination ports from nixlPortSumRouting, before
 * that `room % n`; Mooncake sums the destination session ports (pd §7.2; its
 * history is not in the reference, so every version gets the port rule).
 */
export function queueRoutingFor(backend: Backend, version: string): Profile["queueRouting"] {
  if (backend === "mooncake") return "dst-port-sum";
  return hasChange(version, "nixlPortSumRouting") ? "dst-port-sum" : "room-mod";
}

/** NIXL before its transfer worker queues posted transfers inline (0 queues). */
export function transferQueuesFor(backend: Backend, version: string): number {
  if (backend === "nixl" && !hasChange(version, "transferWorkerQueues")) return 0;
  return 4; // SGLANG_DISAGGREGATION_QUEUE_SIZE default (pd §10)
}

/** Prefill times out in Bootstrapping: Mooncake always, NIXL from nixlPrefillBootstrapTimeout (pd §5.1). */
export function prefillBootstrapTimeoutFor(backend: Backend, version: string): boolean {
  return backend === "mooncake" || hasChange(version, "nixlPrefillBootstrapTimeout");
}

export function indexKRaggedAccessorsWaitFor(version: string): boolean {
  return hasChange(version, "indexKRaggedAccessorsWait");
}

export function drainsBeforeTimeoutFor(backend: Backend, version: string): boolean {
  return backend === "mooncake" || hasChange(version, "nixlDrainsBeforeTimeout");
}

export interface ProfileSettings extends Partial<Profile> {
  backend: Backend;
  version: string;
}

/** A full profile: version-derived behaviour plus the latest release's defaults (pd §10), overridden by what is given. */
export function defaultProfile(given: ProfileSettings): Profile {
  const { backend, version } = given;
  parseVersion(version);
  const derived: Profile = {
    backend,
    version,
    indexKDtype: "fp8",
    indexKPageSize: 64,
    kvPageSize: 64,
    hicache: false,
    overlap: true,
    transferQueues: transferQueuesFor(backend, version),
    queueRouting: queueRoutingFor(backend, version),
    abortHandling: abortHandlingFor(backend, version),
    decodeSendsAbort: decodeSendsAbortFor(version),
    prefillBootstrapTimeout: prefillBootstrapTimeoutFor(backend, version),
    drainsBeforeTimeout: drainsBeforeTimeoutFor(backend, version),
    bootstrapTimeoutS: 300,
    waitingTimeoutS: 300,
    indexKRaggedAccessorsWait: indexKRaggedAccessorsWaitFor(version),
  };
  const out: Profile = { ...derived };
  for (const [k, v] of Object.entries(given)) if (v !== undefined) (out as unknown as Record<string, unknown>)[k] = v;
  return out;
}

const DTYPES: Record<string, IndexKDtype> = { fp8: "fp8", float8_e4m3fn: "fp8", bf16: "bf16", bfloat16: "bf16" };

function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}
function bool(v: unknown): boolean | undefined {
  return typeof v === "boolean" ? v : undefined;
}

/**
 * The profile settings a probe `config` record states (DESIGN.md "Probe JSONL
 * record"), as a partial profile; fields it does not carry stay undefined.
 */
export function settingsFromConfig(attrs: Readonly<Record<string, unknown>>): Partial<Profile> {
  const backend = attrs.backend === "nixl" || attrs.backend === "mooncake" ? attrs.backend : undefined;
  const dtype = typeof attrs.index_k_dtype === "string" ? DTYPES[attrs.index_k_dtype] : undefined;
  const out: Partial<Profile> = {
    backend,
    version: typeof attrs.version === "string" ? attrs.version.replace(/^v/, "") : undefined,
    indexKDtype: dtype,
    indexKPageSize: num(attrs.page_size),
    kvPageSize: num(attrs.kv_page_size),
    hicache: bool(attrs.hicache),
    overlap: bool(attrs.overlap),
    indexKBytesPerTokenConfigured: num(attrs.index_k_bytes_per_token),
    hostIndexKPageStride: num(attrs.host_index_k_page_stride),
    transferQueues: num(attrs.transfer_queues),
    bootstrapTimeoutS: num(attrs.bootstrap_timeout_s),
    waitingTimeoutS: num(attrs.waiting_timeout_s),
    maxContext: num(attrs.max_context),
  };
  for (const k of Object.keys(out) as (keyof Profile)[]) if (out[k] === undefined) delete out[k];
  return out;
}

/** A profile from a `config` record's attributes, explicit overrides winning; backend and version must be known. */
export function profileFor(config: Record<string, unknown>, overrides: Partial<Profile> = {}): Profile {
  const merged = { ...settingsFromConfig(config), ...stripUndefined(overrides) };
  if (!merged.backend || !merged.version) {
    throw new Error("a profile needs the backend (nixl|mooncake) and the SGLang version");
  }
  return defaultProfile(merged as ProfileSettings);
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
