// Cross-host order: host clocks that no causal pair links or bounds tightly
// enough (meta `clock_offsets`, `clock_alignment`, ingest/sources/clock.ts), and
// causal pairs (kv.post before its kv.notify) that the aligned clocks invert.

import { landingKeyInRoom, postTargets } from "../../model/transferPairing.js";
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

/**
 * A room's posts and notifies while the scan is inside the room's span, in
 * seq order, as columns: a room holds dozens, an incident millions, so none
 * is an object of its own.
 */
interface RoomStamps {
  seq: number[];
  tsUs: number[];
  chunk: (number | null)[];
  tp: (number | null)[];
  post: boolean[];
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
  const open = new Map<string, RoomStamps>();
  const found: Inversions = { count: 0 };
  const close = (room: string): void => {
    pairRoom(open.get(room)!, found);
    open.delete(room);
  };
  const reader = transferStampReader((s) => {
    ends.passTo(s.seq, close);
    let stamps = open.get(s.room);
    if (!stamps) {
      open.set(s.room, (stamps = { seq: [], tsUs: [], chunk: [], tp: [], post: [] }));
      ends.track(s.room);
    }
    stamps.seq.push(s.seq);
    stamps.tsUs.push(s.tsUs);
    stamps.chunk.push(s.chunk);
    stamps.tp.push(s.tp);
    stamps.post.push(s.post);
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

/** Pairs a room's posts and notifies in seq order, counting inversions into `found`; keys within the room (landingKeyInRoom). */
function pairRoom(stamps: RoomStamps, found: Inversions): void {
  const { seq, tsUs, chunk, tp, post: isPost } = stamps;
  const decodeTps = new Set<number | null>();
  for (let i = 0; i < seq.length; i++) if (!isPost[i]) decodeTps.add(tp[i] as number | null);
  /** The targets of a post of each TP: the room's decode TPs are known, so they are worked out once per TP. */
  const targetsOf = new Map<number | null, (number | null)[]>();
  /** The first post under each landing key (its row). */
  const posts = new Map<string, number>();
  /** Notifies read before any post under their key: the first one to come pairs with them. */
  const waiting = new Map<string, number[]>();
  const check = (post: number, notify: number): void => {
    if (tsUs[post]! - tsUs[notify]! <= CAUSAL_SLACK_US) return;
    found.count++;
    if (!found.first || seq[notify]! < found.first.notify) found.first = { post: seq[post]!, notify: seq[notify]! };
  };
  const keep = (key: string, post: number): void => {
    if (posts.has(key)) return;
    posts.set(key, post);
    for (const n of waiting.get(key) ?? []) check(post, n);
    waiting.delete(key);
  };
  for (let i = 0; i < seq.length; i++) {
    if (isPost[i]) {
      const postTp = tp[i] as number | null;
      let targets = targetsOf.get(postTp);
      if (targets === undefined) targetsOf.set(postTp, (targets = postTargets(postTp, decodeTps, (t) => t)));
      const postChunk = chunk[i] as number | null;
      for (const target of targets) {
        if (postChunk !== null) keep(landingKeyInRoom(target, postChunk), i);
        keep(landingKeyInRoom(target, null), i);
      }
      continue;
    }
    const key = landingKeyInRoom(tp[i] as number | null, chunk[i] as number | null);
    const post = posts.get(key);
    if (post !== undefined) check(post, i);
    else (waiting.get(key) ?? waiting.set(key, []).get(key)!).push(i);
  }
}
