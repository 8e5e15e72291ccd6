// evidence-gap: what the incident lacks, so that no other verdict is read as
// stronger than its evidence. Missing ranks (against the TP size seen or
// stated), sources with parse errors, a source silent while its siblings kept
// logging (rotation, lost segment), host clock offsets too large to trust, and
// causal pairs (kv.post before its kv.notify) that the aligned clocks invert.

import type { StoredEvent } from "../../ingest/store/queries.js";
import type { CoverageGap } from "./finding.js";
import { parseNotif } from "../model/notif.js";
import { isoTime, seconds, type Evidence } from "./evidence.js";
import { consistent, type DraftFinding, type Rule, type RuleResult } from "./rule.js";

/** Records written every iteration or every few: their silence is visible. */
const PERIODIC_KINDS = ["batch.prefill", "batch.decode", "sched.iter"];
/** A source's periodic records absent this long while a sibling's continue is a gap. */
const GAP_MIN_US = 120_000_000;
/** Sibling records inside a silence that make it a gap rather than a pause of the whole host. */
const GAP_SIBLING_EVENTS = 5;
/** Inversions below this are below the precision the rules order events by (log stamps: milliseconds). */
const CAUSAL_SLACK_US = 1_000;
/** Clock bounds wider than this leave the order of cross-host events that close together unknown. */
const CLOCK_WIDTH_WARN_US = 50_000;

export const evidenceGap: Rule = {
  id: "evidence-gap",
  needs: ["sources and their parse errors", "events per rank", "meta clock_offsets"],
  run({ evidence }): RuleResult {
    const gaps: { gap: CoverageGap; witness: StoredEvent[]; severity: DraftFinding["severity"] }[] = [
      ...missingRanks(evidence),
      ...parseErrors(evidence),
      ...silentSources(evidence),
      ...truncatedSources(evidence),
      ...clockOffsets(evidence),
      ...causalInversions(evidence),
    ];
    const checked = evidence.sources().length;
    if (gaps.length === 0) {
      return consistent("evidence-gap", "No gap in the evidence",
        `${checked} source(s): every rank of each role is present, no parse error, no source went silent while its siblings logged, and host clocks order causal pairs correctly.`, checked);
    }
    const byKind = new Map<CoverageGap["kind"], typeof gaps>();
    for (const g of gaps) byKind.set(g.gap.kind, [...(byKind.get(g.gap.kind) ?? []), g]);
    const findings: DraftFinding[] = [...byKind].map(([kind, list]) => ({
      rule: "evidence-gap",
      severity: list.some((g) => g.severity === "medium") ? "medium" : "low",
      verdict: "violated",
      title: `${TITLES[kind]}: ${list.length}`,
      ranks: [...new Set(list.flatMap((g) => g.gap.ranks ?? []))],
      ...(list[0]!.witness[0] && { tsUs: list[0]!.witness[0].tsUs }),
      witness: list.flatMap((g) => g.witness).slice(0, 12),
      explanation: `Let the incident hold every rank's complete, ordered record. Then ${EXPECT[kind]}, but ${list.map((g) => g.gap.detail).join("; ")}.`,
      falsify: "Collect the missing logs (all ranks, whole time range, probe records) and analyze again.",
      checked,
      facts: { gaps: list.map((g) => g.gap) },
    }));
    return { checked, findings };
  },
};

const TITLES: Record<CoverageGap["kind"], string> = {
  "missing-ranks": "Ranks missing from the evidence",
  "parse-errors": "Sources with unparsable lines",
  "truncated-source": "Sources cut mid-record",
  "time-gap": "Ranks whose periodic records stopped while a sibling's went on",
  "clock-offset": "Host clocks far apart",
  "causal-inversion": "Causal pairs inverted by the aligned clocks",
};

const EXPECT: Record<CoverageGap["kind"], string> = {
  "missing-ranks": "each role shows every TP rank of its size",
  "parse-errors": "every line of every source parses",
  "truncated-source": "every source ends with a complete record",
  "time-gap": "a rank writes its periodic records as long as its siblings on the host do",
  "clock-offset": "host clocks agree closely enough to order events across hosts",
  "causal-inversion": "a transfer's post precedes its notification after clock alignment",
};

type Gap = { gap: CoverageGap; witness: StoredEvent[]; severity: DraftFinding["severity"] };

function missingRanks(evidence: Evidence): Gap[] {
  const rows = evidence.rankRows().filter((r) => r.tp !== null && r.role !== null);
  // One TP group per label prefix ("decode", "decode/pp1", "d1/decode").
  const groups = new Map<string, { role: NonNullable<StoredEvent["role"]>; tps: Set<number> }>();
  for (const r of rows) {
    const label = evidence.rank(r);
    const group = label.slice(0, label.lastIndexOf("/tp"));
    const g = groups.get(group) ?? { role: r.role!, tps: new Set<number>() };
    groups.set(group, g);
    g.tps.add(r.tp!);
  }
  const out: Gap[] = [];
  for (const [group, { role, tps }] of groups) {
    const stated = evidence.config().num("tp_size", role);
    const size = Math.max(stated ?? 0, Math.max(...tps) + 1);
    const missing = [...Array(size).keys()].filter((tp) => !tps.has(tp)).map((tp) => `${group}/tp${tp}`);
    if (missing.length === 0) continue;
    out.push({
      severity: "medium",
      witness: [],
      gap: { kind: "missing-ranks", ranks: missing, detail: `${group} shows ${tps.size} of ${size} TP ranks${stated ? " (tp_size stated)" : " (size from the highest rank seen)"}; missing ${missing.join(", ")}` },
    });
  }
  return out;
}

function parseErrors(evidence: Evidence): Gap[] {
  return evidence.sources().filter((s) => s.errors.length > 0).map((s) => ({
    severity: "low" as const,
    witness: [],
    gap: {
      kind: "parse-errors" as const,
      source: s.path,
      detail: `${s.path} has ${s.errors.length} line(s) that could not be read (first: line ${s.errors[0]!.line}: ${s.errors[0]!.message})`,
    },
  }));
}

/**
 * A source whose periodic records (batch lines, probe iterations) stop for a
 * while as a sibling of the same host and role keeps writing its own: a lost
 * segment or a rank that stopped (sparse error-only logs never count).
 */
function silentSources(evidence: Evidence): Gap[] {
  const kinds = PERIODIC_KINDS.map(() => "?").join(", ");
  const rows = evidence.db
    .prepare(
      `SELECT source_id AS sourceId, prevSeq, seq, prevTs, ts_us AS ts FROM (
         SELECT source_id, seq, ts_us, LAG(ts_us) OVER w AS prevTs, LAG(seq) OVER w AS prevSeq FROM events WHERE kind IN (${kinds})
         WINDOW w AS (PARTITION BY source_id ORDER BY seq))
       WHERE ts_us - prevTs >= ?`,
    )
    .all(...PERIODIC_KINDS, GAP_MIN_US) as { sourceId: number; prevSeq: number; seq: number; prevTs: number; ts: number }[];
  const siblingEvents = evidence.db.prepare(
    `SELECT COUNT(*) AS n FROM events e JOIN sources s ON s.id = e.source_id
     WHERE e.ts_us > ? AND e.ts_us < ? AND e.source_id != ? AND s.host IS ? AND s.role IS ? AND e.kind IN (${kinds})`,
  );
  const out: Gap[] = [];
  for (const r of rows) {
    const source = evidence.source(r.sourceId);
    if (!source) continue;
    const n = (siblingEvents.get(r.prevTs, r.ts, r.sourceId, source.host, source.role, ...PERIODIC_KINDS) as { n: number }).n;
    if (n < GAP_SIBLING_EVENTS) continue;
    const before = evidence.event(r.prevSeq)!;
    const after = evidence.event(r.seq)!;
    out.push({
      severity: "low",
      witness: [before, after],
      gap: {
        kind: "time-gap",
        source: source.path,
        ranks: [evidence.rank(before)],
        from: isoTime(r.prevTs),
        to: isoTime(r.ts),
        detail: `${source.path} writes no periodic record for ${seconds(r.ts - r.prevTs)} (${evidence.where(before)} to ${evidence.where(after)}) while ${n} of its siblings' were written`,
      },
    });
  }
  return out;
}

/** A source whose last line could not be read: the file was cut mid-record. */
function truncatedSources(evidence: Evidence): Gap[] {
  return evidence.sources().flatMap((s) => {
    const last = s.errors.find((e) => e.line === s.lines);
    if (!last) return [];
    return [{
      severity: "low" as const,
      witness: [],
      gap: { kind: "truncated-source" as const, source: s.path, detail: `${s.path} ends mid-record: its last line (${s.lines}) could not be read (${last.message})` },
    }];
  });
}

interface ClockPair {
  a: string;
  b: string;
  /** lo <= offset[a] - offset[b] <= hi, in µs; null where no causal pair bounds that side. */
  lo: number | null;
  hi: number | null;
  constraints: number;
}

/**
 * meta `clock_offsets` (host → µs added to its raw times) and `clock_alignment`
 * (the causal-pair bounds they rest on): a host no pair links, a pair bounded
 * on one side only, or bounds wider than CLOCK_WIDTH_WARN_US leave cross-host
 * order uncertain by that much.
 */
function clockOffsets(evidence: Evidence): Gap[] {
  const offsets = evidence.meta<Record<string, number>>("clock_offsets") ?? {};
  const pairs = evidence.meta<{ pairs: ClockPair[] }>("clock_alignment")?.pairs ?? [];
  const hosts = Object.keys(offsets);
  if (hosts.length < 2) return [];
  const linked = new Set(pairs.flatMap((p) => [p.a, p.b]));
  const details = [
    ...unlinkedText(hosts.filter((h) => !linked.has(h))),
    ...pairs.filter((p) => p.lo === null || p.hi === null).map((p) => `hosts ${p.a} and ${p.b} are bounded on one side only (${p.constraints} causal pair(s))`),
    ...pairs
      .filter((p) => p.lo !== null && p.hi !== null && p.hi - p.lo > CLOCK_WIDTH_WARN_US)
      .map((p) => `hosts ${p.a} and ${p.b} agree only within ${seconds(p.hi! - p.lo!)}`),
  ];
  return details.map((detail) => ({ severity: "low" as const, witness: [], gap: { kind: "clock-offset" as const, detail } }));
}

function unlinkedText(hosts: string[]): string[] {
  if (hosts.length === 0) return [];
  return [`no causal pair links host(s) ${hosts.join(", ")} to the others, so their clocks are taken as logged`];
}

/**
 * A kv.post more than CAUSAL_SLACK_US after its kv.notify on the aligned clocks. Pairs are matched by
 * room, chunk (the column, else the NIXL tag's chunk) and TP rank: with equal
 * TP, prefill tp r writes to decode tp r (§5.2 rank mapping).
 */
function causalInversions(evidence: Evidence): Gap[] {
  const posts = new Map<string, { seq: number; ts: number }>();
  for (const p of evidence.db.prepare("SELECT seq, ts_us AS ts, room, chunk, tp FROM events WHERE kind = 'kv.post' AND room IS NOT NULL").all() as
    { seq: number; ts: number; room: string; chunk: number | null; tp: number | null }[]) {
    const key = `${p.room}|${p.chunk}|${p.tp}`;
    if (!posts.has(key)) posts.set(key, p);
  }
  if (posts.size === 0) return [];
  const inverted: { post: number; notify: number }[] = [];
  for (const n of evidence.db.prepare("SELECT seq, ts_us AS ts, room, chunk, tp, json_extract(attrs, '$.tag') AS tag FROM events WHERE kind = 'kv.notify' AND room IS NOT NULL").all() as
    { seq: number; ts: number; room: string; chunk: number | null; tp: number | null; tag: string | null }[]) {
    const chunk = n.chunk ?? (n.tag ? parseNotif(n.tag)?.chunk ?? null : null);
    const post = posts.get(`${n.room}|${chunk}|${n.tp}`);
    if (post && post.ts - n.ts > CAUSAL_SLACK_US) inverted.push({ post: post.seq, notify: n.seq });
  }
  if (inverted.length === 0) return [];
  const post = evidence.event(inverted[0]!.post)!;
  const notify = evidence.event(inverted[0]!.notify)!;
  return [{
    severity: "medium",
    witness: [post, notify],
    gap: {
      kind: "causal-inversion",
      detail: `${inverted.length} kv.notify record(s) precede their kv.post after alignment (first: ${evidence.where(notify)} before ${evidence.where(post)}, ${seconds(post.tsUs - notify.tsUs)} apart); cross-host order there is not trustworthy`,
    },
  }];
}
