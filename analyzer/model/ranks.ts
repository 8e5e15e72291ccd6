// Ranks: small integer ids for (host, role, pp, tp) so the hot path keys maps
// by number, and the labels findings print ("decode/tp3", or "d0/decode/tp3"
// when hosts are qualified).

import type { Role } from "../../domain/vocabulary.js";

export const ROLE_NAMES: readonly Role[] = ["prefill", "decode", "router", "unknown"];
const ROLE_INDEX: Record<string, number> = { prefill: 0, decode: 1, router: 2, unknown: 3 };
export const PREFILL = 0;
export const DECODE = 1;

export interface RankInfo {
  host: string | null;
  role: number;
  pp: number;
  tp: number;
}

/**
 * "decode/tp3"; "p0/prefill/pp1/tp3" with hosts qualified and pp > 0. PP 0
 * and an absent PP tag name the same rank (logs print PP only when pp_size > 1,
 * probes always give it).
 */
export function rankLabel(host: string | null, role: string, pp: number | null, tp: number | null, qualifyHost: boolean): string {
  const h = qualifyHost && host !== null ? `${host}/` : "";
  const p = pp !== null && pp > 0 ? `/pp${pp}` : "";
  return `${h}${role}${p}/tp${tp ?? 0}`;
}

/** The server a rank label names, its label less the TP rank (`decode/tp3` → `decode`); a label of no TP rank (a machine's, a pod's) is its own. */
export function serverOfRank(label: string): string {
  const at = label.lastIndexOf("/tp");
  return at < 0 ? label : label.slice(0, at);
}

/** Entries of RankRegistry's cache of recent lookups (a power of two). */
const RECENT = 1024;

export class RankRegistry {
  readonly ranks: RankInfo[] = [];
  readonly labels: string[] = [];
  private readonly hosts = new Map<string, number>();
  private readonly ids = new Map<number, number>();
  /**
   * Recent lookups, direct-mapped by host, role, pp and tp: events of a few
   * ranks interleave, so a one-entry cache missed on most events and the two
   * map lookups behind it (host string, then key) were a few % of a replay.
   */
  private readonly recentHost: (string | null)[] = new Array<string | null>(RECENT).fill(null);
  /** NaN: an empty entry (no key equals it). */
  private readonly recentKey = new Float64Array(RECENT).fill(NaN);
  private readonly recentId = new Int32Array(RECENT);

  constructor(readonly qualifyHosts: boolean) {}

  roleIndex(role: string | null): number {
    return role === null ? 3 : (ROLE_INDEX[role] ?? 3);
  }

  /** The id of the rank an event comes from; `role` overrides the event's own when the kind implies the side. */
  id(host: string | null, role: number, pp: number | null, tp: number | null): number {
    const p = pp ?? 0;
    const t = tp ?? 0;
    // The key `lookup` derives from (host, role, pp, tp) less the host: equal keys and hosts are one rank.
    const key = (role * 256 + p) * 65536 + t;
    const hostCode = host === null || host.length === 0 ? 0 : host.charCodeAt(host.length - 1);
    const slot = (((hostCode * 4 + role) * 16 + t) * 4 + p) & (RECENT - 1);
    if (this.recentKey[slot] === key && this.recentHost[slot] === host) return this.recentId[slot]!;
    const id = this.lookup(host, role, pp, tp);
    this.recentKey[slot] = key;
    this.recentHost[slot] = host;
    this.recentId[slot] = id;
    return id;
  }

  private lookup(host: string | null, role: number, pp: number | null, tp: number | null): number {
    let h = 0;
    if (host !== null) {
      const known = this.hosts.get(host);
      if (known === undefined) this.hosts.set(host, (h = this.hosts.size + 1));
      else h = known;
    }
    const key = ((h * 4 + role) * 256 + (pp ?? 0)) * 65536 + (tp ?? 0);
    const found = this.ids.get(key);
    if (found !== undefined) return found;
    const id = this.ranks.length;
    this.ranks.push({ host, role, pp: pp ?? 0, tp: tp ?? 0 });
    this.labels.push(rankLabel(host, ROLE_NAMES[role]!, pp, tp, this.qualifyHosts));
    this.ids.set(key, id);
    return id;
  }

  label(id: number): string {
    return this.labels[id] ?? `rank${id}`;
  }

  /** Ranks of a role with a given tp (the peer of an equal-TP transfer). */
  withTp(role: number, tp: number): number[] {
    const out: number[] = [];
    this.ranks.forEach((r, i) => {
      if (r.role === role && r.tp === tp) out.push(i);
    });
    return out;
  }

  encode(): unknown[] {
    return this.ranks.map((r) => [r.host, r.role, r.pp, r.tp]);
  }

  static decode(a: unknown[], qualifyHosts: boolean): RankRegistry {
    const reg = new RankRegistry(qualifyHosts);
    for (const [host, role, pp, tp] of a as [string | null, number, number, number][]) reg.id(host, role, pp, tp);
    return reg;
  }
}
