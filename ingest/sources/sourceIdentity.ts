// Who wrote a source, as the ingest decides it after the source's parse: what
// the content says first (the first host and role its events name, the ranks
// they name), then the path (ingest/inputs/pathIdentity.ts), then the
// --host/--role flags. A file parsed in parts (ingest/load/sourceParts.ts)
// has one content reading per part; read in file order they decide what one
// reading of the whole file would.

import type { ParsedEvent } from "../../domain/event.js";
import type { Role } from "../../domain/vocabulary.js";
import { identityFromPath, type PathIdentity } from "../inputs/pathIdentity.js";
import { rankName } from "../../store/rows.js";

/** What a parse read of a source's identity from its content alone. */
export interface ContentIdentity {
  host: string | null;
  /** The events name more than one host: one stream of several machines' lines (`kubectl logs -l … --prefix`, `docker compose logs`, `stern`). */
  severalHosts: boolean;
  role: Role | null;
  /** The first role each host's events name (a `server_args` line's side, a PD batch line's): the role of that host's other lines in a stream of several. */
  hostRoles: Record<string, Role>;
  /** Ranks the events named, as "dp/tp" (dp empty when absent). */
  ranks: string[];
}

/** Where the content does not say: the path, then the flags. */
export interface IdentityFallback {
  identityPath: string;
  /** What the path says as read with the rest of its bundle (ingest/inputs/machines.ts); absent: the identity path alone. */
  pathIdentity?: PathIdentity;
  flagHost: string | null;
  flagRole: Role | null;
}

export interface SourceIdentity {
  /** The host of its records that name none. */
  host: string | null;
  /** Its lines name several hosts: each record keeps the host it names (ingest/load/runs.ts), and one that names no role takes its host's. */
  hostPerLine: boolean;
  role: Role | null;
  /** In a stream of several hosts, the role each host's own lines name (ContentIdentity.hostRoles). */
  hostRoles: Record<string, Role>;
  /** The rank of the file's records that name none: from its path, else the one rank its lines name. */
  rank: { dp?: number; tp?: number } | null;
}

/**
 * The rank a log's parse gives the records whose lines name none
 * (ParseContext.rank), both dp and tp: the source's rank is decided after its
 * parse (ingest/pipeline.ts), and ingest/load/runs.ts puts it in their place.
 */
export const SOURCE_RANK = -1;

/** Ranks remembered by their fields; past them, every rank counts as new. */
const MAX_MET_RANKS = 32;

/**
 * The ranks a source's events named so far, compared field by field: the
 * ranks of one file interleave line by line, and a key string made per event
 * to look a rank up was a tenth of the parse's garbage.
 */
export class MetRanks {
  private readonly met: { role: Role | undefined; dp: number | undefined; pp: number | undefined; tp: number | undefined }[] = [];

  /** True unless these fields were met before (always true past MAX_MET_RANKS distinct ranks). */
  isNew(role: Role | undefined, dp: number | undefined, pp: number | undefined, tp: number | undefined): boolean {
    const met = this.met;
    for (let i = 0; i < met.length; i++) {
      const r = met[i]!;
      if (r.role === role && r.dp === dp && r.pp === pp && r.tp === tp) return false;
    }
    if (met.length < MAX_MET_RANKS) met.push({ role, dp, pp, tp });
    return true;
  }
}

/** Reads the content identity from a source's events as its parse hands them out. */
export class ContentIdentityReader {
  private host: string | null = null;
  private severalHosts = false;
  private role: Role | null = null;
  private readonly hostRoles: Record<string, Role> = {};
  private readonly ranks = new Set<string>();
  private readonly met = new MetRanks();

  fromEvent(ev: ParsedEvent): void {
    if (ev.tp !== undefined && ev.tp !== SOURCE_RANK && this.met.isNew(undefined, ev.dp, undefined, ev.tp)) {
      this.ranks.add(`${ev.dp === undefined || ev.dp === SOURCE_RANK ? "" : ev.dp}/${ev.tp}`);
    }
    if (ev.host !== undefined && ev.host !== this.host) {
      if (this.host === null) this.host = ev.host;
      else this.severalHosts = true;
    }
    if (ev.role === undefined || ev.role === "unknown") return;
    if (this.role === null) this.role = ev.role;
    if (ev.host !== undefined && !(ev.host in this.hostRoles)) this.hostRoles[ev.host] = ev.role;
  }

  result(): ContentIdentity {
    return { host: this.host, severalHosts: this.severalHosts, role: this.role, hostRoles: { ...this.hostRoles }, ranks: [...this.ranks] };
  }
}

/** A source's identity from the content readings of its parts, in file order. */
export function resolveIdentity(fallback: IdentityFallback, contents: readonly ContentIdentity[]): SourceIdentity {
  const fromPath = pathIdentityOf(fallback);
  const content = combineContents(contents);
  const host = content.host ?? fromPath.host ?? fallback.flagHost;
  const role = content.role ?? fromPath.role ?? fallback.flagRole;
  // A file of several machines' lines (compose, stern, pdsh) is no one process's: its lines keep the ranks they name.
  const rank = fromPath.tp !== undefined ? { tp: fromPath.tp } : content.severalHosts ? null : singleRank(content);
  return { host, hostPerLine: content.severalHosts, role, hostRoles: content.hostRoles, rank };
}

/** The content readings of a file's parts, in file order, as one reading of the whole file. */
export function combineContents(contents: readonly ContentIdentity[]): ContentIdentity {
  const hosts = new Set(contents.flatMap((c) => (c.host !== null ? [c.host] : [])));
  return {
    host: contents.find((c) => c.host !== null)?.host ?? null,
    severalHosts: hosts.size > 1 || contents.some((c) => c.severalHosts),
    role: contents.find((c) => c.role !== null)?.role ?? null,
    // The first part that names a host's role names it for the whole file.
    hostRoles: Object.assign({}, ...[...contents].reverse().map((c) => c.hostRoles)) as Record<string, Role>,
    ranks: [...new Set(contents.flatMap((c) => c.ranks))],
  };
}

function pathIdentityOf(fallback: IdentityFallback): PathIdentity {
  return fallback.pathIdentity ?? identityFromPath(fallback.identityPath);
}

/** The one rank the lines name; none when they name several or none. */
function singleRank(content: ContentIdentity): { dp?: number; tp?: number } | null {
  const ranks = new Set(content.ranks);
  if (ranks.size !== 1) return null;
  const [dp, tp] = [...ranks][0]!.split("/");
  return { ...(dp !== "" ? { dp: Number(dp) } : {}), tp: Number(tp) };
}

/** A rank as a source's parse names it: its lines' role, dp, pp and tp, SOURCE_RANK where the source's rank goes. */
export function neutralRankKey(role: Role | undefined, dp: number | undefined, pp: number | undefined, tp: number | undefined): string {
  return `${role ?? ""}/${dp ?? ""}/${pp ?? ""}/${tp ?? ""}`;
}

/** The rank's name (store/rows.ts rankName) once the source's role and rank are known. */
export function rankNameOf(key: string, identity: SourceIdentity): string {
  const [role, dp, pp, tp] = key.split("/") as [string, string, string, string];
  const value = (v: string, own: number | undefined): number | undefined => (v === "" ? undefined : Number(v) === SOURCE_RANK ? own : Number(v));
  return rankName(role === "" ? identity.role : role, value(dp, identity.rank?.dp), value(pp, undefined), value(tp, identity.rank?.tp));
}
