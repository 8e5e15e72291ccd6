// What a server's thread dumps say together (ingest/formats/log/pyspyDump.ts; an interrupt's traceback is one too,
// failures.ts isThreadSnapshot): when the dumps caught every rank but one
// in the same collective, the ranks in it wait for the one that is not — the one that never arrived (busy elsewhere,
// or stuck in its own wait). That rank is where the stall starts; why it is elsewhere is in its own dump's frame.

import { LogKind } from "../../domain/kinds.js";
import { serverOfRank } from "../model/ranks.js";
import { attrString, type Evidence } from "./evidence.js";
import type { FailureGroup } from "./failureFindings.js";
import { isThreadSnapshot } from "./failures.js";

export interface OutsideRank {
  rank: string;
  /** Where its dump caught it: `MainThread (active) in synchronize (torch/cuda/__init__.py:954)`. */
  where: string;
  /** The collective the others wait in. */
  op: string;
}

/** The one rank of the group's server whose dump is not in the collective the group's dumps all caught, if there is one. */
export function outsideCollective(evidence: Evidence, g: FailureGroup): OutsideRank | undefined {
  if (g.records.length < 2 || g.records.some((r) => !isThreadSnapshot(r.ev) || attrString(r.ev, "waitingIn") !== "collective")) return undefined;
  const ops = new Set(g.records.map((r) => attrString(r.ev, "waitOp")));
  const servers = new Set(g.ranks.map(serverOfRank));
  if (ops.size !== 1 || servers.size !== 1) return undefined;
  const [op] = ops;
  const [server] = servers;
  const snapshots = [...evidence.of(LogKind.stackDump), ...evidence.of(LogKind.exception).filter(isThreadSnapshot)];
  const others = snapshots.filter((ev) => {
    const rank = evidence.rank(ev);
    return serverOfRank(rank) === server && !g.ranks.includes(rank) && attrString(ev, "waitOp") !== op;
  });
  const outside = new Set(others.map((ev) => evidence.rank(ev)));
  if (outside.size !== 1) return undefined;
  const ev = others[0]!;
  return { rank: evidence.rank(ev), op: op!, where: `${attrString(ev, "thread") ?? "its main thread"} in ${attrString(ev, "stuckIn") ?? "a frame its dump does not show"}` };
}
