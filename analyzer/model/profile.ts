// Profiles: which SGLang behaviour a replay reproduces, derived from backend and
// version per the version history in the reference, with explicit settings
// (from a `config` record or a --profile flag) winning over what is derived.

import type { AbortHandling, Backend, IndexKDtype, Profile } from "./api.js";

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
 * How the prefill bootstrap thread answers ABORT (pd §7.1, §7.2).
 * NIXL frames must start with GUARD; before #30352 (v0.5.16) an ABORT frame
 * fails that assertion, which ends the thread. Decode only sends ABORT from
 * v0.5.13 (#27372), so before that the assertion is reached only by foreign
 * traffic. Mooncake handles ABORT (Failed + ABORT_ACK) since #27372.
 */
export function abortHandlingFor(backend: Backend, version: string): AbortHandling {
  if (backend === "mooncake") return "failed-ack";
  return versionAtLeast(version, "0.5.16") ? "failed-no-ack" : "fatal-assert";
}

/** Decode's receiver sends ABORT to prefill on abort() and on waiting timeout from v0.5.13 (#27372). */
export function decodeSendsAbortFor(version: string): boolean {
  return versionAtLeast(version, "0.5.13");
}

/**
 * NIXL routes a room to `sum(dst ports) % n` from v0.5.17 (#32025), before that
 * `room % n`; Mooncake sums the destination session ports (pd §7.2; its
 * history is not in the reference, so every version gets the port rule).
 */
export function queueRoutingFor(backend: Backend, version: string): Profile["queueRouting"] {
  if (backend === "mooncake") return "dst-port-sum";
  return versionAtLeast(version, "0.5.17") ? "dst-port-sum" : "room-mod";
}

/** NIXL up to v0.5.11 had no transfer worker queues (#23967): transfers were posted inline (0 queues). */
export function transferQueuesFor(backend: Backend, version: string): number {
  if (backend === "nixl" && !versionAtLeast(version, "0.5.12")) return 0;
  return 4; // SGLANG_DISAGGREGATION_QUEUE_SIZE default (pd §10)
}

/** Prefill times out in Bootstrapping: Mooncake always, NIXL only from v0.5.18 (#34692), pd §5.1. */
export function prefillBootstrapTimeoutFor(backend: Backend, version: string): boolean {
  return backend === "mooncake" || versionAtLeast(version, "0.5.18");
}

/**
 * The ragged index-K accessors wait for their HiCache layer after #22811.
 * [inference] The reference dates the post-fix pool to May 2026 and later; its
 * companion #23346 merged 2026-05-07 like #23967, which is first in v0.5.12.
 * So v0.5.12 is taken as the first fixed release; a `config` record or an
 * explicit profile setting overrides this guess.
 */
export function indexKRaggedAccessorsWaitFor(version: string): boolean {
  return versionAtLeast(version, "0.5.12");
}

/** NIXL's receiver drains notifications before its waiting-timeout check from v0.5.17 (#32267). */
export function drainsBeforeTimeoutFor(backend: Backend, version: string): boolean {
  return backend === "mooncake" || versionAtLeast(version, "0.5.17");
}

export interface ProfileSettings extends Partial<Profile> {
  backend: Backend;
  version: string;
}

/** A full profile: version-derived behaviour plus v0.5.18 defaults (pd §10), overridden by what is given. */
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
