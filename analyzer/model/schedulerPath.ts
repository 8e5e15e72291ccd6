// Handlers of the scheduler loop probes: iterations and their branch, and
// collective entries/exits checked FR-style for the first divergent
// (group, seq) (docs/hicache-indexk.md §3, §5.2).

import type { Divergence } from "./collectives.js";
import { ROLE_NAMES } from "./ranks.js";
import type { ModelState } from "./state.js";
import type { EventPlace } from "./api.js";
import type { EventOf } from "../../domain/domainEvent.js";

function rank(s: ModelState, ev: EventPlace): number {
  return s.rankOf(ev, s.ranks.roleIndex(ev.role));
}

/** role index → group name → "role:group" (cached: the hot path builds no strings). */
const GROUP_KEYS: Map<string, string>[] = ROLE_NAMES.map(() => new Map());

/** Groups are per role: prefill's and decode's TP groups are different process groups under one name. */
function groupKey(s: ModelState, ev: EventOf<"coll.enter" | "coll.exit">): string {
  const role = s.ranks.roleIndex(ev.role);
  const group = ev.group ?? "?";
  const cache = GROUP_KEYS[role]!;
  let key = cache.get(group);
  if (key === undefined) cache.set(group, (key = `${ROLE_NAMES[role]}:${group}`));
  return key;
}

export function onSchedIter(s: ModelState, ev: EventOf<"sched.iter">): void {
  s.collectives.iter(rank(s, ev), ev.branch ?? "?", ev.seq);
}

export function onCollEnter(s: ModelState, ev: EventOf<"coll.enter">): void {
  s.count("collective-divergence");
  const d = s.collectives.enter(
    rank(s, ev),
    groupKey(s, ev),
    ev.collSeq ?? null,
    ev.op ?? "?",
    ev.site ?? "",
    ev.digest ?? null,
    ev.seq,
    ev.tsUs,
  );
  if (d !== null) reportDivergence(s, ev, d);
}

export function onCollExit(s: ModelState, ev: EventOf<"coll.exit">): void {
  s.collectives.exit(rank(s, ev), groupKey(s, ev), ev.seq);
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
    { group: d.group, collectiveSeq: d.seq, kind: d.kind, op: d.op, otherOp: d.otherOp, site: d.site, inside, culprits, culpritBranches: d.culpritBranches },
    null,
    d.culprits[0],
  );
}
