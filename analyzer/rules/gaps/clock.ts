// Cross-host order: host clocks that no causal pair links or bounds tightly
// enough (meta `clock_offsets`, `clock_alignment`, ingest/scan/clock.ts), and
// causal pairs (kv.post before its kv.notify) that the aligned clocks invert.

import { landingKey, postTargets } from "../../model/transferPairing.js";
import { transferNotifies, transferPosts } from "../../../store/read/records.js";
import { seconds, type Evidence } from "../evidence.js";
import { CROSS_HOST_RULES, type Gap } from "./gap.js";

/** Inversions below this are below the precision the rules order events by (log stamps: milliseconds). */
const CAUSAL_SLACK_US = 1_000;
/** Clock bounds wider than this leave the order of cross-host events that close together unknown. */
const CLOCK_WIDTH_WARN_US = 50_000;

interface ClockPair {
  a: string;
  b: string;
  /** lo <= offset[a] - offset[b] <= hi, in µs; null where no causal pair bounds that side. */
  lo: number | null;
  hi: number | null;
  constraints: number;
}

/**
 * A host no pair links, a pair bounded on one side only, or bounds wider
 * than CLOCK_WIDTH_WARN_US leave cross-host order uncertain by that much.
 */
export function clockOffsets(evidence: Evidence): Gap[] {
  const offsets = evidence.meta<Record<string, number>>("clock_offsets") ?? {};
  const pairs = evidence.meta<{ pairs: ClockPair[] }>("clock_alignment")?.pairs ?? [];
  const hosts = Object.keys(offsets);
  if (hosts.length < 2) return [];
  const linked = new Set(pairs.flatMap((p) => [p.a, p.b]));
  const unlinked = hosts.filter((h) => !linked.has(h));
  const details = [
    ...(unlinked.length ? [`no causal pair links host(s) ${unlinked.join(", ")} to the others, so their clocks are taken as logged`] : []),
    ...pairs.filter((p) => p.lo === null || p.hi === null).map((p) => `hosts ${p.a} and ${p.b} are bounded on one side only (${p.constraints} causal pair(s))`),
    ...pairs
      .filter((p) => p.lo !== null && p.hi !== null && p.hi - p.lo > CLOCK_WIDTH_WARN_US)
      .map((p) => `hosts ${p.a} and ${p.b} agree only within ${seconds(p.hi! - p.lo!)}`),
  ];
  return details.map((detail) => ({ severity: "low" as const, witness: [], gap: { kind: "clock-offset" as const, weakens: CROSS_HOST_RULES, detail } }));
}

/**
 * A kv.post more than CAUSAL_SLACK_US after its kv.notify on the aligned
 * clocks. A notify is paired with the first post the reference model would
 * land by it (analyzer/model/transferPairing.ts): same room, a post whose
 * target TP (postTargets, over the TPs the room's notifies name) is the
 * notify's, same chunk (a NIXL tag's chunk is in the column, decoded at
 * ingest), or any chunk for a notify that names none. Unlike the model, the
 * pairing holds when the notify comes first: that inversion is what this finds.
 */
export function causalInversions(evidence: Evidence): Gap[] {
  const notifies = transferNotifies(evidence.db);
  const decodeTps = new Map<string, Set<number | null>>();
  for (const n of notifies) (decodeTps.get(n.room) ?? decodeTps.set(n.room, new Set()).get(n.room)!).add(n.tp);
  const posts = new Map<string, { seq: number; tsUs: number }>();
  const keep = (key: string, p: { seq: number; tsUs: number }) => posts.has(key) || posts.set(key, p);
  for (const p of transferPosts(evidence.db)) {
    for (const tp of postTargets(p.tp, decodeTps.get(p.room) ?? [], (t) => t)) {
      if (p.chunk !== null) keep(landingKey(p.room, tp, p.chunk), p);
      keep(landingKey(p.room, tp, null), p);
    }
  }
  if (posts.size === 0) return [];
  const inverted: { post: number; notify: number }[] = [];
  for (const n of notifies) {
    const post = posts.get(landingKey(n.room, n.tp, n.chunk));
    if (post && post.tsUs - n.tsUs > CAUSAL_SLACK_US) inverted.push({ post: post.seq, notify: n.seq });
  }
  if (inverted.length === 0) return [];
  const post = evidence.event(inverted[0]!.post)!;
  const notify = evidence.event(inverted[0]!.notify)!;
  return [{
    severity: "medium",
    witness: [post, notify],
    gap: {
      kind: "causal-inversion",
      weakens: CROSS_HOST_RULES,
      detail: `${inverted.length} kv.notify record(s) precede their kv.post after alignment (first: ${evidence.where(notify)} before ${evidence.where(post)}, ${seconds(post.tsUs - notify.tsUs)} apart); cross-host order there is not trustworthy`,
    },
  }];
}
