// Cross-host order: host clocks that no causal pair links or bounds tightly
// enough (meta `clock_offsets`, `clock_alignment`, ingest/sources/clock.ts), and
// causal pairs (kv.post before its kv.notify) that the aligned clocks invert.

import { landingKey, postTargets } from "../../model/transferPairing.js";
import { readOnce, type Reading } from "../../../store/blocks/pass.js";
import { transferStampReader } from "../../../store/read/records.js";
import { RoomEnds } from "../../../store/read/roomEnds.js";
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

/** A post or notify as the pairing keeps it. */
interface Stamp {
  seq: number;
  tsUs: number;
}

/** A post or notify of a room while the scan is inside the room's span. */
interface RoomStamp extends Stamp {
  chunk: number | null;
  tp: number | null;
  post: boolean;
}

/** The first inversion (by its notify) and how many. */
interface Inversions {
  count: number;
  first?: { post: number; notify: number };
}

/**
 * A kv.post more than CAUSAL_SLACK_US after its kv.notify on the aligned
 * clocks. A notify is paired with the first post the reference model would
 * land by it (analyzer/model/transferPairing.ts): same room, a post whose
 * target TP (postTargets, over the TPs the room's notifies name) is the
 * notify's, same chunk (a NIXL tag's chunk is in the column, decoded at
 * ingest), or any chunk for a notify that names none. Unlike the model, the
 * pairing holds when the notify comes first: that inversion is what this finds.
 *
 * One pass over the posts and notifies: a room's are kept until the scan is
 * past the room (its last block, store/read/roomEnds.ts), then paired and
 * dropped, so what is held is the rooms in flight, not every post and notify
 * of the incident.
 */
export function causalInversions(evidence: Evidence): Gap[] {
  return readOnce(evidence.db, causalInversionsReading(evidence));
}

/** causalInversions as one reader of a pass shared with others (store/blocks/pass.ts). */
export function causalInversionsReading(evidence: Evidence): Reading<Gap[]> {
  const ends = new RoomEnds(evidence.db);
  const open = new Map<string, RoomStamp[]>();
  const found: Inversions = { count: 0 };
  const close = (room: string): void => {
    pairRoom(room, open.get(room)!, found);
    open.delete(room);
  };
  const reader = transferStampReader((s) => {
    ends.passTo(s.seq, close);
    let stamps = open.get(s.room);
    if (!stamps) {
      open.set(s.room, (stamps = []));
      ends.track(s.room);
    }
    stamps.push({ seq: s.seq, tsUs: s.tsUs, chunk: s.chunk, tp: s.tp, post: s.post });
  });
  const finish = (): Gap[] => {
    for (const room of open.keys()) close(room);
    return inversionGaps(evidence, found);
  };
  return { readers: [reader], finish };
}

function inversionGaps(evidence: Evidence, found: Inversions): Gap[] {
  const { count, first } = found;
  if (count === 0 || !first) return [];
  const post = evidence.event(first.post)!;
  const notify = evidence.event(first.notify)!;
  return [{
    severity: "medium",
    witness: [post, notify],
    gap: {
      kind: "causal-inversion",
      weakens: CROSS_HOST_RULES,
      detail: `${count} kv.notify record(s) precede their kv.post after alignment (first: ${evidence.where(notify)} before ${evidence.where(post)}, ${seconds(post.tsUs - notify.tsUs)} apart); cross-host order there is not trustworthy`,
    },
  }];
}

/** Pairs a room's posts and notifies in seq order, counting inversions into `found`. */
function pairRoom(room: string, stamps: readonly RoomStamp[], found: Inversions): void {
  const decodeTps = new Set<number | null>();
  for (const s of stamps) if (!s.post) decodeTps.add(s.tp);
  /** The first post under each landing key. */
  const posts = new Map<string, Stamp>();
  /** Notifies read before any post under their key: the first one to come pairs with them. */
  const waiting = new Map<string, Stamp[]>();
  const check = (post: Stamp, notify: Stamp): void => {
    if (post.tsUs - notify.tsUs <= CAUSAL_SLACK_US) return;
    found.count++;
    if (!found.first || notify.seq < found.first.notify) found.first = { post: post.seq, notify: notify.seq };
  };
  const keep = (key: string, post: Stamp): void => {
    if (posts.has(key)) return;
    posts.set(key, post);
    for (const n of waiting.get(key) ?? []) check(post, n);
    waiting.delete(key);
  };
  for (const s of stamps) {
    if (s.post) {
      for (const tp of postTargets(s.tp, decodeTps, (t) => t)) {
        if (s.chunk !== null) keep(landingKey(room, tp, s.chunk), s);
        keep(landingKey(room, tp, null), s);
      }
      continue;
    }
    const key = landingKey(room, s.tp, s.chunk);
    const post = posts.get(key);
    if (post) check(post, s);
    else (waiting.get(key) ?? waiting.set(key, []).get(key)!).push(s);
  }
}
