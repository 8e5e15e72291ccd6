// Who wrote a source, when the content does not say: host and role from its
// path (`<host>/<role>-...`, e.g. `d0/decode-tp3.log`, or `decode-0/tp3.log`),
// and the zone its log timestamps were written in (--tz).

import { ROLES, type Role } from "../../domain/vocabulary.js";

export class InputError extends Error {
  readonly exitCode = 2;
}

const ROLE_WORDS = ROLES.filter((r) => r !== "unknown").join("|");
const FILE_ROLE = new RegExp(`^(${ROLE_WORDS})(?![a-z])`, "i");
const DIR_ROLE = new RegExp(`(?:^|[^a-z])(${ROLE_WORDS})(?![a-z])`, "i");
/** kubelet's pod log folder, `<namespace>_<pod>_<pod uid>` (/var/log/pods/...): the pod is the host. */
const K8S_POD_DIR = /^[a-z0-9-]+_([a-z0-9][a-z0-9.-]*)_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** How far up from the file a folder may name the role (kubelet: <pod folder>/<container>/0.log). */
const ROLE_DIR_DEPTH = 3;

export interface PathIdentity {
  host?: string;
  role?: Role;
  /** A per-rank file's TP rank: `tp3.log`, `decode-tp-3.log`, `rank_3.stderr`, `tp3/stderr.log`. */
  tp?: number;
}

const PATH_RANK = /(?:^|[^a-z])(?:tp|rank)[-_]?(\d{1,4})(?![\d])/i;
/** A rank token at the end of a pod-named file (`sglang-prefill-0_tp3`): the rank, not part of the pod's name. */
const TRAILING_RANK = /[-_.](?:tp|rank)[-_]?\d{1,4}$/i;

/**
 * Host, role and TP rank from the path: `<host>/<role>-<rest>` (d0/decode-tp3.log),
 * a file named for its pod (`sglang-decode-0.log`, as `kubectl logs` output is
 * saved; `sglang-decode-0_tp3.log` is that pod's rank 3), or a role-named
 * folder up to three levels above the file (kubelet's
 * `<ns>_<pod>_<uid>/<container>/0.log`, whose pod is the host); empty when the path says none.
 */
export function identityFromPath(path: string): PathIdentity {
  const parts = path.split(/[\\/]+/).filter((p) => p !== "" && p !== "." && p !== "..");
  const file = parts[parts.length - 1] ?? "";
  const dir = parts.length >= 2 ? parts[parts.length - 2] : undefined;
  const rank = PATH_RANK.exec(file) ?? (dir !== undefined ? PATH_RANK.exec(dir) : null);
  const tp = rank ? { tp: Number(rank[1]) } : {};
  const fromFile = FILE_ROLE.exec(file);
  if (fromFile) return { role: fromFile[1]!.toLowerCase() as Role, ...(dir !== undefined ? { host: dir } : {}), ...tp };
  const inFileName = DIR_ROLE.exec(file);
  if (inFileName) {
    const host = file.replace(/\.[^.]*$/, "");
    return { host: host.replace(TRAILING_RANK, "") || host, role: inFileName[1]!.toLowerCase() as Role, ...tp };
  }
  for (let up = 2; up <= ROLE_DIR_DEPTH && up <= parts.length; up++) {
    const folder = parts[parts.length - up]!;
    const fromDir = DIR_ROLE.exec(folder);
    if (fromDir) return { host: K8S_POD_DIR.exec(folder)?.[1] ?? folder, role: fromDir[1]!.toLowerCase() as Role, ...tp };
  }
  return tp;
}

export function parseRole(value: string): Role {
  if ((ROLES as readonly string[]).includes(value)) return value as Role;
  throw new InputError(`--role must be one of ${ROLES.join(", ")} (got ${JSON.stringify(value)})`);
}

/** A fixed offset (±HH:MM) or an IANA zone whose offset depends on the date. */
export type TimeZoneSpec = { kind: "fixed"; minutes: number } | { kind: "zone"; name: string };

export const UTC: TimeZoneSpec = { kind: "fixed", minutes: 0 };

const FIXED_OFFSET = /^(?:UTC|GMT)?([+-])(\d{1,2}):?(\d{2})$/i;

export function parseTimeZone(value: string): TimeZoneSpec {
  const m = FIXED_OFFSET.exec(value.trim());
  if (m) {
    const minutes = Number(m[2]) * 60 + Number(m[3]);
    if (Number(m[3]) >= 60 || minutes > 14 * 60) throw new InputError(`--tz ${value}: offset out of range`);
    return { kind: "fixed", minutes: m[1] === "-" ? -minutes : minutes };
  }
  if (/^(UTC|GMT|Z)$/i.test(value.trim())) return UTC;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: value });
  } catch {
    throw new InputError(`--tz ${value}: not an IANA zone name (like Europe/Berlin) or an offset (like +02:00)`);
  }
  return { kind: "zone", name: value };
}

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

/** Minutes east of UTC of `zone` at the instant `utcMs`. */
function zoneOffsetAt(zone: string, utcMs: number): number {
  let fmt = zoneFormats.get(zone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    zoneFormats.set(zone, fmt);
  }
  const f: Record<string, number> = {};
  for (const p of fmt.formatToParts(new Date(utcMs))) if (p.type !== "literal") f[p.type] = Number(p.value);
  const wall = Date.UTC(f.year!, f.month! - 1, f.day!, f.hour!, f.minute!, f.second!);
  return Math.round((wall - Math.floor(utcMs / 1000) * 1000) / 60_000);
}

/**
 * Minutes east of UTC for a wall-clock time (given as if it were UTC, in ms)
 * written in `tz`. A log gets one offset, taken at its first timestamp: a
 * daylight-saving change inside one log is not followed.
 */
export function offsetMinutesForWallClock(tz: TimeZoneSpec, wallMs: number): number {
  if (tz.kind === "fixed") return tz.minutes;
  const first = zoneOffsetAt(tz.name, wallMs);
  return zoneOffsetAt(tz.name, wallMs - first * 60_000);
}

const LOG_STAMP = /^\[(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)/m;

/** The wall-clock time (ms, read as UTC) of the first SGLang log prefix in a text (§1). */
export function firstLogWallClock(text: string): number | undefined {
  const m = LOG_STAMP.exec(text);
  if (!m) return undefined;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
}
