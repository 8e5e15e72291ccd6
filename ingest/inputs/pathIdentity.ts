// Who wrote a source, when the content does not say: host, role and rank
// from its path, and the zone its log timestamps were written in (--tz).
// A machine's folder is its host (`node-a/sglang-decode.log`, `d0/decode-tp3.log`,
// kubelet's `<ns>_<pod>_<uid>/` folder); a file name gives a role and a rank
// (DESIGN.md "Who and when"), and names a host only where no folder does
// (a pod's log saved at a bundle's top, `sglang-decode-0.log`). Which folders
// are machines is decided over a whole bundle (ingest/inputs/machines.ts).

import { ROLES, type Role } from "../../domain/vocabulary.js";
import { isDeploymentPodName } from "./podName.js";
import { PREVIOUS_RUN, rotationOf } from "./rotation.js";
import { sosReportHost } from "./sosReport.js";

export class InputError extends Error {
  readonly exitCode = 2;
}

const ROLE_WORDS = ROLES.filter((r) => r !== "unknown").join("|");
const FILE_ROLE = new RegExp(`^(${ROLE_WORDS})(?![a-z])`, "i");
const DIR_ROLE = new RegExp(`(?:^|[^a-z])(${ROLE_WORDS})(?![a-z])`, "i");
/** kubelet's pod log folder, `<namespace>_<pod>_<pod uid>` (/var/log/pods/...): the pod is the host. */
const K8S_POD_DIR = /^[a-z0-9-]+_([a-z0-9][a-z0-9.-]*)_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Docker's json-file folder, `containers/<64 hex id>/`: the container, by the short id `docker ps` shows. */
const DOCKER_CONTAINER_DIR = /^[0-9a-f]{64}$/;
/** How far up from the file a folder may name the role or be the machine (kubelet: <pod folder>/<container>/0.log). */
const FOLDER_DEPTH = 3;
/** Folders that hold logs without naming a machine: the bundle's own layout, a rank's folder, a kind of dump's (py-spy's, cores). */
const NOT_A_MACHINE =
  /^(?:logs?|var|tmp|pods|containers|output|outputs|data|dumps?|traces?|artifacts?|stdout|stderr|downloads|desktop|home|(?:tp|rank)[-_]?\d{1,4}|py[-_]?spy|stacks|stack[-_]?(?:dumps?|traces?)|core[-_]?dumps?|cores)$/i;

/** The role a name states (`sglang-prefill-0`, `decode-1`), as a folder's name does. */
export function roleOfName(name: string): Role | undefined {
  return DIR_ROLE.exec(name)?.[1]!.toLowerCase() as Role | undefined;
}

export interface PathIdentity {
  host?: string;
  role?: Role;
  /** A per-rank file's TP rank: `tp3.log`, `decode-tp-3.log`, `rank_3.stderr`, `tp3/stderr.log`. */
  tp?: number;
}

/** What a path says, with where its host came from, for the bundle's reading (ingest/inputs/machines.ts). */
export interface PathReading extends PathIdentity {
  /** The folder that names the host (the path up to and with it), when a folder does. */
  folder?: string;
  /** The host the file's own name gives (`sglang-decode-0.log`: the pod), when it names a role. */
  fileHost?: string;
}

const PATH_RANK = /(?:^|[^a-z])(?:tp|rank)[-_]?(\d{1,4})(?![\d])/i;
/** A rank token at the end of a pod-named file (`sglang-prefill-0_tp3`): the rank, not part of the pod's name. */
const TRAILING_RANK = /[-_.](?:tp|rank)[-_]?\d{1,4}$/i;

/** Host, role and TP rank from one path alone (no sibling seen): its machine folder's host, else its name's. */
export function identityFromPath(path: string): PathIdentity {
  const { folder: _folder, fileHost: _fileHost, ...identity } = readPath(path);
  return identity;
}

/**
 * What a path says: the TP rank (file name, else its folder), the role (the
 * file name, else a folder up to three levels above it), the machine folder
 * (kubelet's pod folder, a docker container's, else the nearest folder that
 * is no layout or rank folder) and the host the file name gives (a
 * role-named stem without its rank token or a previous run's mark:
 * `sglang-prefill-0_tp3.log` and `sglang-prefill-0-previous.log` are pod
 * sglang-prefill-0's; a Deployment's pod name whatever its role). A rotated
 * part reads as its live file.
 */
export function readPath(path: string): PathReading {
  const parts = path.split(/[\\/]+/).filter((p) => p !== "" && p !== "." && p !== "..");
  const file = rotationOf(parts[parts.length - 1] ?? "").live;
  const dir = parts.length >= 2 ? parts[parts.length - 2] : undefined;
  const rank = PATH_RANK.exec(file) ?? (dir !== undefined ? PATH_RANK.exec(dir) : null);
  const out: PathReading = rank ? { tp: Number(rank[1]) } : {};
  const role = FILE_ROLE.exec(file) ?? DIR_ROLE.exec(file);
  const stem = file.replace(/\.[^.]*$/, "");
  if (role) {
    out.role = role[1]!.toLowerCase() as Role;
    out.fileHost = stem.replace(PREVIOUS_RUN, "").replace(TRAILING_RANK, "").replace(PREVIOUS_RUN, "") || stem;
  } else {
    // `kubectl logs dynamo-frontend-7d9c8b6f5-x2kqp > dynamo-frontend-7d9c8b6f5-x2kqp.log`: a Deployment's pod, whatever its role.
    const pod = stem.replace(PREVIOUS_RUN, "");
    if (isDeploymentPodName(pod)) out.fileHost = pod;
  }
  for (let up = 2; up <= FOLDER_DEPTH && up <= parts.length; up++) {
    const folder = parts[parts.length - up]!;
    const fromDir = out.role === undefined ? roleOfName(folder) : undefined;
    if (fromDir !== undefined) out.role = fromDir;
  }
  const machine = machineFolder(parts);
  if (machine) Object.assign(out, machine);
  // `oc adm inspect`'s pod folder lies deeper than a role's reach, and names it all the same.
  const inspected = inspectedPod(parts);
  if (out.role === undefined && inspected !== undefined) {
    const podRole = roleOfName(inspected);
    if (podRole !== undefined) out.role = podRole;
  }
  const host = out.host ?? out.fileHost;
  return host !== undefined ? { ...out, host } : out;
}

/** The folder that is the file's machine, and the host it names. */
function machineFolder(parts: readonly string[]): { host: string; folder: string } | undefined {
  const at = (up: number) => ({ folder: parts.slice(0, parts.length - up + 1).join("/"), name: parts[parts.length - up]! });
  const inspected = inspectedPod(parts);
  if (inspected !== undefined) return { host: inspected, folder: parts.slice(0, parts.indexOf(inspected, parts.length - 6) + 1).join("/") };
  for (let up = 2; up <= FOLDER_DEPTH && up <= parts.length; up++) {
    const { folder, name } = at(up);
    const pod = K8S_POD_DIR.exec(name);
    if (pod) return { host: pod[1]!, folder };
  }
  // A sos report is one machine's however deep its files lie (ingest/inputs/sosReport.ts).
  for (let up = 2; up <= parts.length; up++) {
    const { folder, name } = at(up);
    const host = sosReportHost(name);
    if (host !== undefined) return { host, folder };
  }
  for (let up = 2; up <= FOLDER_DEPTH && up <= parts.length; up++) {
    const { folder, name } = at(up);
    if (DOCKER_CONTAINER_DIR.test(name)) return { host: name.slice(0, 12), folder };
    if (!NOT_A_MACHINE.test(name)) return { host: name, folder };
  }
  return undefined;
}

/**
 * The pod of a file that `oc adm inspect` (OpenShift's must-gather) wrote:
 * `pods/<pod>/<container>/<container>/logs/current.log` (and `previous.log`,
 * their `.insecure` forms) and `pods/<pod>/<pod>.yaml` (oc
 * pkg/cli/admin/inspect/pod.go gatherContainerLogs).
 */
function inspectedPod(parts: readonly string[]): string | undefined {
  const n = parts.length;
  if (n >= 6 && parts[n - 2] === "logs" && parts[n - 3] === parts[n - 4] && parts[n - 6] === "pods") return parts[n - 5];
  if (n >= 3 && parts[n - 3] === "pods" && parts[n - 1]!.replace(/\.ya?ml$/i, "") === parts[n - 2]) return parts[n - 2];
  return undefined;
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
