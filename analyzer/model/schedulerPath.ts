// Handlers of the scheduler loop probes: iterations and their branch, and
// collective entries/exits checked FR-style for the first divergent
// (group, seq) (docs/hicache-indexk.md §3, §5.2).

import type { Divergence } from "./collectives.js";
import type { ModelState } from "./state.js";
import type { EventPlace } from "./api.js";
import type { EventOf } from "../../domain/domainEvent.js";

function rank(s: ModelState, ev: EventPlace): number {
  return s.rankOf(ev, s.ranks.roleIndex(ev.role));
}

/** A rank's process group for one collective group: the rank's label less its tp, and the group's name. */
interface GroupPlace {
  key: string;
  where: string;
  name: string;
}

/** rank id → group name → its place (cached: the hot path builds no strings). */
const PLACES = new WeakMap<ModelState, Map<number, Map<string, GroupPlace>>>();

/**
 * Groups are per host, role and pipeline stage: two prefill instances on two
 * hosts, or prefill's and decode's TP groups, are different process groups
 * under one name ("p0/prefill:tp_cpu"; "prefill:tp_cpu" when each role runs
 * on one host and labels leave hosts out).
 */
function placeOf(s: ModelState, rankId: number, ev: EventOf<"coll.enter" | "coll.exit">): GroupPlace {
  let perRank = PLACES.get(s);
  if (perRank === undefined) PLACES.set(s, (perRank = new Map()));
  let byName = perRank.get(rankId);
  if (byName === undefined) perRank.set(rankId, (byName = new Map()));
  const name = ev.group ?? "?";
  let place = byName.get(name);
  if (place === undefined) {
    const label = s.ranks.label(rankId);
    const where = label.slice(0, label.lastIndexOf("/tp"));
    byName.set(name, (place = { key: `${where}:${name}`, where, name }));
  }
  return place;
}

export function onSchedIter(s: ModelState, ev: EventOf<"sched.iter">): void {
  s.collectives.iter(rank(s, ev), ev.branch ?? "?", ev.seq);
}

export function onCollEnter(s: ModelState, ev: EventOf<"coll.enter">): void {
  s.count("collective-divergence");
  const r = rank(s, ev);
  const g = placeOf(s, r, ev);
  s.collectives.enter(
    r,
    g.key,
    g.where,
    g.name,
    ev.collSeq ?? null,
    ev.op ?? "?",
    ev.site ?? "",
    ev.digest ?? null,
    ev.seq,
    ev.tsUs,
  );
}

export function onCollExit(s: ModelState, ev: EventOf<"coll.exit">): void {
  const r = rank(s, ev);
  const g = placeOf(s, r, ev);
  s.collectives.exit(r, g.key, g.where, g.name, ev.seq);
}

export function reportDivergence(s: ModelState, ev: EventPlace, d: Divergence): void {
  const inside = d.ranks.map((r) => s.ranks.label(r));
  const culprits = d.culprits.map((r) => s.ranks.label(r));
  const what =
    d.kind === "missing-ranks"
      ? `${inside.join(", ")} wait in ${d.op} #${d.seq}${d.site ? ` (${d.site})` : ""} that ${culprits.join(", ")} never entered` +
        (d.culpritBranches.some((b) => b !== null) ? ` (last branch: ${d.culpritBranches.map((b) => b ?? "?").join(", ")})` : "")
      : d.kind === "op-mismatch"
        ? `${inside.join(", ")} entered ${d.op} as #${d.seq} but ${culprits.join(", ")} entered ${d.otherOp}`
        : `${inside.join(", ")} and ${culprits.join(", ")} entered ${d.op} #${d.seq} with different payload digests`;
  s.violation(
    "collective-divergence",
    ev,
    d.witness,
    `group ${d.group}: ${what}`,
    { group: d.group, where: d.where, name: d.name, collectiveSeq: d.seq, kind: d.kind, op: d.op, otherOp: d.otherOp, site: d.site, inside, culprits, culpritBranches: d.culpritBranches, hang: d.hang },
    null,
    d.culprits[0],
  );
}
