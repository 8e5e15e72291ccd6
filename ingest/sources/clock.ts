// Clock alignment across hosts (DESIGN.md "Canonical store", Time).
//
// Hosts disagree by milliseconds. Causal pairs bound the difference of two
// hosts' clock offsets: if event b on host B must precede event a on host A,
// then (b + o_B) <= (a + o_A), i.e. o_B - o_A <= a - b. The pairs used are
// those the protocol guarantees whatever went wrong in the incident, per room:
//   - transfer: a notification is received (probe kv.notify, decode) only
//     after it was sent with its RDMA write (probe kv.post, or the log line
//     `sending kvcache to ... with notif {tag}`, prefill) — §3.2, §6;
//   - metadata: decode sends it (log `Sending to prefill server with bootstrap
//     room`, probe kv.meta) before prefill takes it (log `got info room=`,
//     probe boot.msg kind meta) and before any post for the room — §7;
//   - ABORT sent (decode) before ABORT received (prefill); ABORT_ACK sent
//     (prefill) before ABORT_ACK received (decode) — §7.1, §7.2;
// and per collective (group, seq): its exit on any rank follows its entry on
// every rank. Reads of a room's pages are deliberately not used: whether a
// read waited for the landed data is what the analyzer must judge.
//
// For a room the earliest "before" precedes every "after" (each after has its
// own before, which is no earlier than the earliest); that holds only while
// all the befores are on one host, so other rooms are left out. Keys are per
// room rather than per chunk or tag: the earliest send and the earliest
// receipt are nearly always the first chunk's, so the bound is as tight, with
// far fewer keys.
//
// Each host gets an offset o (microseconds added to its raw times). For every
// pair of hosts the pairs give an interval lo <= o_X - o_Y <= hi; the estimate
// is its midpoint (within (hi - lo) / 2 of the truth when latencies are
// symmetric), or the smallest correction that satisfies a one-sided bound.
// Offsets propagate from a reference host (the first in name order of each
// connected group, offset 0) along the tightest intervals.

import type { ParsedEvent } from "../../domain/event.js";
import type { AnchorAgg, ClockAlignment, PairBound, Relation, UpperBound } from "../../domain/clockAnchors.js";
import { LogKind } from "../../domain/kinds.js";

export interface Anchor {
  key: string;
  rel: Relation;
  side: "before" | "after";
}

function roomAnchor(prefix: string, room: string | undefined, side: "before" | "after"): Anchor | undefined {
  return room === undefined ? undefined : { key: prefix + room, rel: "earliest", side };
}

function collAnchor(ev: ParsedEvent): Anchor | undefined {
  const group = ev.attrs?.group;
  const seq = ev.attrs?.seq;
  if (group === undefined || group === null || seq === undefined || seq === null) return undefined;
  return { key: `c:${String(group)}:${String(seq)}`, rel: "all", side: ev.kind === "coll.enter" ? "before" : "after" };
}

const NO_ANCHORS: readonly Anchor[] = [];

/** The causal anchors an event takes part in (usually none). */
export function anchorsOf(ev: ParsedEvent): readonly Anchor[] {
  const room = ev.room;
  const failed = ev.attrs?.failed === true;
  let one: Anchor | undefined;
  switch (ev.kind) {
    case "kv.post": {
      const both = [roomAnchor("x:", room, "before"), roomAnchor("m:", room, "after")];
      return both.filter((a): a is Anchor => a !== undefined);
    }
    case LogKind.notifSent:
      one = roomAnchor("x:", room, "before");
      break;
    case "kv.notify":
      one = roomAnchor("x:", room, "after");
      break;
    case "kv.meta":
    case LogKind.metadataSent:
      one = roomAnchor("m:", room, "before");
      break;
    case LogKind.gotInfo:
      one = roomAnchor("m:", room, "after");
      break;
    case "boot.msg": {
      const kind = ev.attrs?.kind;
      if (kind === "meta") one = roomAnchor("m:", room, "after");
      else if (kind === "ABORT") one = roomAnchor("a:", room, "after");
      break;
    }
    case LogKind.abortSent:
      if (!failed) one = roomAnchor("a:", room, "before");
      break;
    case LogKind.abortReceived:
      if (ev.attrs?.outcome !== "malformed") one = roomAnchor("a:", room, "after");
      break;
    case LogKind.abortAckSent:
      if (!failed) one = roomAnchor("k:", room, "before");
      break;
    case LogKind.abortAckReceived:
      one = roomAnchor("k:", room, "after");
      break;
    case "coll.enter":
    case "coll.exit":
      one = collAnchor(ev);
      break;
  }
  return one ? [one] : NO_ANCHORS;
}

/** Per key, the anchors of each domain (rarely more than two). */
interface KeyEntry {
  rel: Relation;
  domains: string[];
  minBefore: (number | null)[];
  maxBefore: (number | null)[];
  minAfter: (number | null)[];
}

/** Accumulates anchors per (key, domain): memory grows with rooms and collectives, not lines. */
export class AnchorTable {
  private readonly keys = new Map<string, KeyEntry>();

  add(anchor: Anchor, domain: string, tsUs: number): void {
    let e = this.keys.get(anchor.key);
    if (!e) {
      e = { rel: anchor.rel, domains: [], minBefore: [], maxBefore: [], minAfter: [] };
      this.keys.set(anchor.key, e);
    }
    let i = e.domains.indexOf(domain);
    if (i < 0) {
      i = e.domains.push(domain) - 1;
      e.minBefore.push(null);
      e.maxBefore.push(null);
      e.minAfter.push(null);
    }
    if (anchor.side === "before") {
      const lo = e.minBefore[i]!;
      const hi = e.maxBefore[i]!;
      if (lo === null || tsUs < lo) e.minBefore[i] = tsUs;
      if (hi === null || tsUs > hi) e.maxBefore[i] = tsUs;
    } else {
      const lo = e.minAfter[i]!;
      if (lo === null || tsUs < lo) e.minAfter[i] = tsUs;
    }
  }

  /**
   * The anchors of `ev` (anchorsOf). `quantumUs` is the precision of the event's stamp: a log line stamped to
   * the millisecond happened up to 999 us after its stamp, so as an "after"
   * it counts at its latest possible time and never tightens a bound wrongly.
   */
  addAll(anchors: readonly Anchor[], ev: ParsedEvent, domain: string, quantumUs: number): void {
    for (const a of anchors) this.add(a, domain, a.side === "after" ? ev.tsUs + quantumUs - 1 : ev.tsUs);
  }

  get size(): number {
    return this.keys.size;
  }

  /** Hands out the aggregates gathered so far and starts afresh. */
  drain(): AnchorAgg[] {
    const out: AnchorAgg[] = [];
    for (const [key, e] of this.keys) {
      for (let i = 0; i < e.domains.length; i++) {
        out.push({ key, rel: e.rel, domain: e.domains[i]!, minBefore: e.minBefore[i]!, maxBefore: e.maxBefore[i]!, minAfter: e.minAfter[i]! });
      }
    }
    this.keys.clear();
    return out;
  }
}

function pairBounds(domains: string[], bounds: readonly UpperBound[]): PairBound[] {
  const ub = new Map(bounds.map((b) => [`${b.from}\u0000${b.to}`, b]));
  const pairs: PairBound[] = [];
  for (let i = 0; i < domains.length; i++) {
    for (let j = i + 1; j < domains.length; j++) {
      const a = domains[i]!;
      const b = domains[j]!;
      const ab = ub.get(`${a}\u0000${b}`);
      const ba = ub.get(`${b}\u0000${a}`);
      if (!ab && !ba) continue;
      pairs.push({ a, b, hi: ab ? ab.c : null, lo: ba ? -ba.c : null, constraints: (ab?.n ?? 0) + (ba?.n ?? 0) });
    }
  }
  return pairs;
}

/**
 * Per-domain offsets; every domain in `domains` gets one. Hosts are assumed
 * close in time (NTP) unless causality says otherwise, so the offsets are the
 * smallest corrections that satisfy every bound: starting from 0, a host
 * whose events would come before their causes is moved earlier just enough
 * (Bellman-Ford over the difference constraints o[from] <= o[to] + c; the
 * result is the greatest solution with no offset above 0). The midpoint of
 * each interval is not used: one direction's pairs often include queueing
 * (a notification drained at the next poll, a transfer behind others), and
 * a midpoint would split that delay between the clocks.
 */
export function alignClocks(domainList: Iterable<string>, bounds: readonly UpperBound[]): ClockAlignment {
  const domains = [...new Set([...domainList, ...bounds.flatMap((b) => [b.from, b.to])])].sort();
  const offsets: Record<string, number> = Object.fromEntries(domains.map((d) => [d, 0]));
  for (let round = 0; round < domains.length; round++) {
    let moved = false;
    for (const b of bounds) {
      const limit = offsets[b.to]! + b.c;
      if (offsets[b.from]! > limit) {
        offsets[b.from] = limit;
        moved = true;
      }
    }
    if (!moved) break;
  }
  const consistent = bounds.every((b) => offsets[b.from]! <= offsets[b.to]! + b.c);
  return { offsetsUs: offsets, consistent, pairs: pairBounds(domains, bounds) };
}
