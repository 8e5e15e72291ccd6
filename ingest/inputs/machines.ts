// Which folders of a bundle are machines (DESIGN.md "Who and when"). Each
// path is read on its own first (ingest/inputs/pathIdentity.ts readPath): its
// machine folder names its host. Two readings need the whole bundle: a folder
// that holds the logs of several pods, saved each under its pod's name
// (`incident/sglang-decode-0.log`, `incident/sglang-prefill-0.log`), is no
// machine, so each file keeps the host its name gives; and after the parse,
// the files of one machine's folder share what their content says of it
// (a probe record's host, a log's role), so that its logs, probe records and
// Flight Recorder dumps are one host.

import type { Role } from "../../domain/vocabulary.js";
import { readPath, type PathIdentity, type PathReading } from "./pathIdentity.js";

/** A pod's name as Kubernetes makes it: a StatefulSet ordinal (`-0`) or a ReplicaSet's hash and suffix. */
const POD_NAME = /-(?:\d{1,4}|[a-z0-9]{6,10}-[a-z0-9]{5})$/;

/** The path readings of one ingest's files, with folders of pods' logs read as no machine. */
export function readBundlePaths(paths: readonly { identityPath: string; bundle: number }[]): PathReading[] {
  const readings = paths.map((p) => readPath(p.identityPath));
  const key = (i: number) => `${paths[i]!.bundle}\u0000${readings[i]!.folder}`;
  const pods = new Map<string, Set<string>>();
  readings.forEach((r, i) => {
    if (r.folder === undefined || r.fileHost === undefined || !POD_NAME.test(r.fileHost)) return;
    (pods.get(key(i)) ?? pods.set(key(i), new Set()).get(key(i))!).add(r.fileHost);
  });
  return readings.map((r, i) => {
    if (r.folder === undefined || (pods.get(key(i))?.size ?? 0) < 2) return r;
    const { folder: _folder, host: _host, ...rest } = r;
    return r.fileHost !== undefined ? { ...rest, host: r.fileHost } : rest;
  });
}

/** A parsed file as folder sharing sees it: where its path puts it, and what its content said. */
export interface FolderMember {
  bundle: number;
  reading: PathReading;
  contentHost: string | null;
  host: string | null;
  role: Role | null;
}

/**
 * Identity the files of one machine's folder share: the one host their
 * content names (a probe record's `host`), for the files whose host only
 * their path gave; the one role the folder's files have, for the files with
 * none (a Flight Recorder dump beside its rank's log). Returns the changes,
 * by member index.
 */
export function shareFolderIdentity(members: readonly FolderMember[]): Map<number, PathIdentity> {
  const groups = new Map<string, number[]>();
  members.forEach((m, i) => {
    if (m.reading.folder === undefined) return;
    const key = `${m.bundle}\u0000${m.reading.folder}`;
    (groups.get(key) ?? groups.set(key, []).get(key)!).push(i);
  });
  const changes = new Map<number, PathIdentity>();
  for (const idx of groups.values()) {
    const contentHosts = new Set(idx.flatMap((i) => (members[i]!.contentHost !== null ? [members[i]!.contentHost!] : [])));
    const roles = new Set(idx.flatMap((i) => (members[i]!.role !== null && members[i]!.role !== "unknown" ? [members[i]!.role!] : [])));
    const host = contentHosts.size === 1 ? [...contentHosts][0]! : undefined;
    const role = roles.size === 1 ? [...roles][0]! : undefined;
    for (const i of idx) {
      const m = members[i]!;
      const change: PathIdentity = {};
      if (host !== undefined && m.contentHost === null && m.host !== host) change.host = host;
      if (role !== undefined && (m.role === null || m.role === "unknown")) change.role = role;
      if (change.host !== undefined || change.role !== undefined) changes.set(i, change);
    }
  }
  return changes;
}

/** A path reading as a source's identity takes it: host, role and rank only. */
export function identityOf(r: PathReading): PathIdentity {
  return { ...(r.host !== undefined && { host: r.host }), ...(r.role !== undefined && { role: r.role }), ...(r.tp !== undefined && { tp: r.tp }) };
}
