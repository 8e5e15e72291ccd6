// evidence-gap: what the incident lacks, so that no other verdict is read as
// stronger than its evidence. Missing ranks (against the TP size seen or
// stated), sources with parse errors, a source silent while its siblings kept
// logging (rotation, lost segment), host clock offsets too large to trust, and
// causal pairs (kv.post before its kv.notify) that the aligned clocks invert.

import type { SourceRow, StoredEvent } from "../../ingest/store/queries.js";
import type { CoverageGap } from "./finding.js";
import { isoTime, seconds, type Evidence } from "./evidence.js";
import { consistent, type DraftFinding, type Rule, type RuleResult } from "./rule.js";

/** A source silent this long while a sibling of its role logs is a gap... */
const GAP_MIN_US = 120_000_000;
/** ...if the silence is also this many times the source's mean interval (sparse error-only logs are not gaps). */
const GAP_MEAN_INTERVALS = 20;
/** Sibling events inside a silence that make it a gap rather than a pause of the whole role. */
const GAP_SIBLING_EVENTS = 5;
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
      ...earlyEnds(evidence),
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
  "truncated-source": "Sources that end early",
  "time-gap": "Sources silent while their siblings logged",
  "clock-offset": "Host clocks far apart",
  "causal-inversion": "Causal pairs inverted by the aligned clocks",
};

const EXPECT: Record<CoverageGap["kind"], string> = {
  "missing-ranks": "each role shows every TP rank of its size",
  "parse-errors": "every line of every source parses",
  "truncated-source": "every source covers the incident's time range",
  "time-gap": "a source logs as long as the other ranks of its role do",
  "clock-offset": "host clocks agree closely enough to order events across hosts",
  "causal-inversion": "a transfer's post precedes its notification after clock alignment",
};

type Gap = { gap: CoverageGap; witness: StoredEvent[]; severity: DraftFinding["severity"] };

function missingRanks(evidence: Evidence): Gap[] {
  const rows = evidence.db.prepare("SELECT DISTINCT host, role, pp, tp FROM events WHERE tp IS NOT NULL AND role IS NOT NULL").all() as
    Pick<StoredEvent, "host" | "role" | "pp" | "tp">[];
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

function silentSources(evidence: Evidence): Gap[] {
  const rows = evidence.db
    .prepare(
      `SELECT source_id AS sourceId, prevSeq, seq, prevTs, ts_us AS ts FROM (
         SELECT source_id, seq, ts_us, LAG(ts_us) OVER w AS prevTs, LAG(seq) OVER w AS prevSeq FROM events
         WINDOW w AS (PARTITION BY source_id ORDER BY seq))
       WHERE ts_us - prevTs >= ?`,
    )
    .all(GAP_MIN_US) as { sourceId: number; prevSeq: number; seq: number; prevTs: number; ts: number }[];
  const out: Gap[] = [];
  const siblingEvents = evidence.db.prepare(
    "SELECT COUNT(*) AS n FROM events e JOIN sources s ON s.id = e.source_id WHERE e.ts_us > ? AND e.ts_us < ? AND e.source_id != ? AND s.role IS ?",
  );
  for (const r of rows) {
    const source = evidence.source(r.sourceId);
    if (!source || r.ts - r.prevTs < GAP_MEAN_INTERVALS * meanIntervalUs(source)) continue;
    const n = (siblingEvents.get(r.prevTs, r.ts, r.sourceId, source.role) as { n: number }).n;
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
        detail: `${source.path} is silent for ${seconds(r.ts - r.prevTs)} (${evidence.where(before)} to ${evidence.where(after)}) while ${n} event(s) of other ${source.role ?? "unknown"} sources were logged`,
      },
    });
  }
  return out;
}

/** A source whose records stop long before those of the other sources of its role. */
function earlyEnds(evidence: Evidence): Gap[] {
  const sources = evidence.sources().filter((s) => s.lastTsUs !== null);
  const out: Gap[] = [];
  for (const s of sources) {
    const siblings = sources.filter((o) => o.id !== s.id && o.role === s.role);
    const siblingEnd = Math.max(...siblings.map((o) => o.lastTsUs!));
    const early = siblingEnd - s.lastTsUs!;
    if (siblings.length === 0 || early < GAP_MIN_US || early < GAP_MEAN_INTERVALS * meanIntervalUs(s)) continue;
    const last = evidence.db.prepare("SELECT MAX(seq) AS seq FROM events WHERE source_id = ?").get(s.id) as { seq: number | null };
    const lastEv = last.seq === null ? undefined : evidence.event(last.seq);
    out.push({
      severity: "low",
      witness: lastEv ? [lastEv] : [],
      gap: {
        kind: "truncated-source",
        source: s.path,
        from: isoTime(s.lastTsUs!),
        to: isoTime(siblingEnd),
        detail: `${s.path} ends ${seconds(siblingEnd - s.lastTsUs!)} before the other ${s.role ?? "unknown"} sources${lastEv ? ` (last record ${evidence.where(lastEv)})` : ""}`,
      },
    });
  }
  return out;
}

function meanIntervalUs(s: SourceRow): number {
  return s.events > 1 && s.firstTsUs !== null && s.lastTsUs !== null ? (s.lastTsUs - s.firstTsUs) / (s.events - 1) : Infinity;
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
    ...hosts.filter((h) => !linked.has(h)).map((h) => `no causal pair links host ${h} to the others, so its clock is taken as is`),
    ...pairs.filter((p) => p.lo === null || p.hi === null).map((p) => `hosts ${p.a} and ${p.b} are bounded on one side only (${p.constraints} causal pair(s))`),
    ...pairs
      .filter((p) => p.lo !== null && p.hi !== null && p.hi - p.lo > CLOCK_WIDTH_WARN_US)
      .map((p) => `hosts ${p.a} and ${p.b} agree only within ${seconds(p.hi! - p.lo!)}`),
  ];
  return details.map((detail) => ({ severity: "low" as const, witness: [], gap: { kind: "clock-offset" as const, detail } }));
}

function causalInversions(evidence: Evidence): Gap[] {
  const rows = evidence.db
    .prepare(
      `SELECT p.seq AS postSeq, n.seq AS notifySeq FROM events p JOIN events n
         ON n.kind = 'kv.notify' AND n.room = p.room AND n.chunk = p.chunk
       WHERE p.kind = 'kv.post' AND n.ts_us < p.ts_us LIMIT 1000`,
    )
    .all() as { postSeq: number; notifySeq: number }[];
  if (rows.length === 0) return [];
  const post = evidence.event(rows[0]!.postSeq)!;
  const notify = evidence.event(rows[0]!.notifySeq)!;
  return [{
    severity: "medium",
    witness: [post, notify],
    gap: {
      kind: "causal-inversion",
      detail: `${rows.length} kv.notify record(s) precede their kv.post after alignment (first: ${evidence.where(notify)} before ${evidence.where(post)}, ${seconds(post.tsUs - notify.tsUs)} apart); cross-host order there is not trustworthy`,
    },
  }];
}
