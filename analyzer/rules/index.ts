// The rule list, running it over an incident, numbering the findings, ranking
// suspects, and storing the result in the incident database (`findings`,
// `suspects`, and meta `analysis` for the incident and coverage headers).

import { basename } from "node:path";
import type { z } from "zod";
import { readBlocksOnce, type BlockReader, type Reading } from "../../store/blocks/pass.js";
import type { IncidentDb } from "../../store/db.js";
import { readAnalysisRows } from "../../store/read/analysis.js";
import { writeAnalysisRows } from "../../store/writeAnalysis.js";
import { addressOverflow } from "./addressOverflow.js";
import { checksumMismatch } from "./checksumMismatch.js";
import { pageBytes } from "./pageBytes.js";
import { collectiveDivergence } from "./collectiveDivergence.js";
import { eventHosts } from "../../store/read/ranks.js";
import { assumedSettings, discipline, type AssumedSetting, type DisciplinedResult } from "./discipline.js";
import { Evidence, isoTime } from "./evidence.js";
import { evidenceGap } from "./evidenceGap.js";
import { contradictions, readDecisions } from "./ledger.js";
import { gapsReading, type Gap } from "./gaps/index.js";
import { type Coverage, type CoverageGap, type Finding, type Incident } from "./finding.js";
import { RULE_IDS, severityRank } from "../../domain/vocabulary.js";
import { hicacheUngatedRead } from "./hicacheUngatedRead.js";
import { loadLibrary } from "../hypotheses/library.js";
import { hypothesesReading } from "../hypotheses/run.js";
import type { HypothesisVerdict } from "../hypotheses/verdict.js";
import { analysisSchema, type Analysis } from "./analysis.js";
import { incompleteCompletion } from "./incompleteCompletion.js";
import { metadataCollision } from "./metadataCollision.js";
import { poolSizingMismatch } from "./poolSizingMismatch.js";
import { processFailure } from "./processFailure.js";
import { readBeforeLandedWrite } from "./readBeforeLandedWrite.js";
import { replayEvidenceOf, type ReplayEvidence } from "./replayEvidence.js";
import { replayReading, type ReplaySummary } from "../replay/replay.js";
import { REPLAY_BESIDE_EVENTS, replayBeside } from "../replay/replayBeside.js";
import { eventCount } from "../../store/read/incident.js";
import { ruleVerdict, type DraftFinding, type Rule } from "./rule.js";
import { rankSuspects, type AbEvidence } from "./suspects.js";
import type { NumberedFinding } from "./suspectEvidence.js";
import { profileSigns } from "../replay/derivedSigns.js";
import { staleSlotReuse } from "./staleSlotReuse.js";
import { earlyReleases } from "./roomTimeouts.js";
import { transferStall } from "./transferStall.js";
import { transportFailure } from "./transportFailure.js";
import { unhandledAbort } from "./unhandledAbort.js";

export const RULES: readonly Rule<unknown>[] = [
  readBeforeLandedWrite,
  hicacheUngatedRead,
  staleSlotReuse,
  incompleteCompletion,
  collectiveDivergence,
  unhandledAbort,
  transferStall,
  checksumMismatch,
  pageBytes,
  metadataCollision,
  poolSizingMismatch,
  addressOverflow,
  processFailure,
  transportFailure,
  evidenceGap,
];

/** Profile fields only a model with an index-K cache has. */
const INDEX_K_FIELDS: readonly string[] = ["indexKDtype", "indexKPageSize", "hostIndexKPageStride", "indexKBytesPerTokenConfigured"];

/**
 * Whether a record shows the model keeps an index-K cache: one that states an
 * index-K setting or touches the index-K buffer, the NSA host-pool line, the
 * loaded model class or the server_args model path (replay/logSigns.ts).
 */
function showsIndexK(evidence: Evidence, findings: readonly NumberedFinding[], replay: ReplayEvidence | undefined): boolean {
  return (
    (replay?.stated.some((f) => INDEX_K_FIELDS.includes(f)) ?? false) ||
    Object.keys(evidence.config().flat()).some((k) => k.startsWith("index_k")) ||
    findings.some((f) => f.draft.facts?.buffer === "index_k") ||
    profileSigns(evidence.db).some((s) => s.indexK === true)
  );
}

export interface AnalyzeOptions {
  /** The incident's name in reports; defaults to the database file's name. */
  name?: string;
  replay?: ReplayEvidence;
  /** What an A/B comparison with a baseline incident says about each cause. */
  ab?: AbEvidence;
}

export interface AnalyzeIncidentOptions extends Omit<AnalyzeOptions, "replay"> {
  /** A --profile flag for the replay (analyzer/replay/profileFlag.ts). */
  profileFlag?: string;
  /** The replay's progress now and then: events done of the total. */
  onProgress?: (phase: string, done: number, total: number) => void;
  /** A full replay just run under the profile the evidence chooses (the derive step's); used when there is no profileFlag. */
  replayed?: ReplaySummary;
  /** Replay on a worker thread beside the rules' pass (replay/replayBeside.ts); by default from REPLAY_BESIDE_EVENTS events. */
  replayBeside?: boolean;
}

/** Replays the incident against the reference model, then runs every rule on the replay and the store. */
export function analyzeIncident(db: IncidentDb, opts: AnalyzeIncidentOptions = {}): Analysis {
  return judgeIncident(db, opts).analysis;
}

/** `analyzeIncident` with the findings as the rules drafted them. */
export function judgeIncident(db: IncidentDb, opts: AnalyzeIncidentOptions = {}): Judged {
  const { profileFlag, onProgress, replayed, replayBeside: _beside, ...rest } = opts;
  // The summary is not held while the rules run: what they read of it is the ReplayEvidence, and its landings are not that.
  if (!profileFlag && replayed) return judge(db, { ...rest, replay: replayEvidenceOf(replayed) });
  const replayOpts = { ...(profileFlag && { profileFlag }), ...(onProgress && { onProgress }) };
  // A large incident's model runs on the second core beside the rules' pass (replay/replayBeside.ts).
  const beside = (opts.replayBeside ?? eventCount(db) >= REPLAY_BESIDE_EVENTS) ? replayBeside(db, replayOpts) : null;
  if (beside) return judge(db, rest, beside);
  // Otherwise the model reads the blocks in the rules' own pass: each block is decoded once for both.
  const replaying = replayReading(db, replayOpts);
  return judge(db, rest, { readers: replaying.readers, finish: () => replayEvidenceOf(replaying.finish()) });
}

/** Runs every rule, numbers the findings, ranks the suspects and checks the library hypotheses. Reads only. */
export function analyze(db: IncidentDb, opts: AnalyzeOptions = {}): Analysis {
  return judge(db, opts).analysis;
}

/** The analysis with the findings as the rules drafted them (their facts say which part of a check each is: checks.ts). */
export interface Judged {
  analysis: Analysis;
  findings: NumberedFinding[];
}

/**
 * Every rule under the verdict discipline, the suspects ranked on their
 * decisions, the ledger reading them. `replaying`: a replay run in the rules'
 * pass over the blocks, or beside it, whose evidence the rules then read in place of `given.replay`.
 */
export function judge(db: IncidentDb, given: AnalyzeOptions = {}, replaying?: Reading<ReplayEvidence>): Judged {
  const evidence = new Evidence(db);
  // The hypotheses before the rules: a rule's consistent does not stand beside a violated hypothesis of its check (ledger.ts).
  const { gaps, ledger, ruleReads } = readShared(evidence, RULES, replaying?.readers);
  const opts: AnalyzeOptions = replaying ? { ...given, replay: replaying.finish() } : given;
  const assumed = assumedSettings(opts.replay);
  const perRule: Coverage["rules"] = [];
  const drafts: DraftFinding[] = [];
  for (const [i, rule] of RULES.entries()) {
    const ran = rule.run({ evidence, gaps, ...(opts.replay && { replay: opts.replay }) }, ruleReads[i]?.finish());
    const result = discipline(rule, ran, gaps, assumed, contradictions(ledger, rule.id));
    drafts.push(...result.findings);
    perRule.push({
      rule: rule.id,
      verdict: ruleVerdict(result.findings),
      checked: result.checked,
      missing: [...new Set(result.findings.flatMap((f) => f.missing ?? []))],
      ...(result.assumed.length && { assumed: result.assumed }),
    });
  }
  const numbered = numberFindings(drafts);
  const suspects = rankSuspects(numbered, {
    config: evidence.config(),
    released: earlyReleases(evidence),
    rules: perRule,
    ...(opts.ab && { ab: opts.ab }),
    ...(opts.replay && { stated: opts.replay.stated }),
    indexKShown: showsIndexK(evidence, numbered, opts.replay),
  });
  return {
    analysis: {
      incident: incidentOf(evidence, opts, assumed),
      coverage: coverageOf(evidence, drafts, perRule),
      findings: numbered.map((f) => toFinding(evidence, f)),
      suspects,
      hypotheses: readDecisions(ledger, numbered, evidence, gaps),
    },
    findings: numbered,
  };
}

/**
 * The evidence gaps, the library hypotheses' verdicts and what each rule
 * reads of the blocks, from one pass that decodes each block once
 * (store/blocks/pass.ts). A rule's reading is finished when the rule runs.
 */
function readShared(
  evidence: Evidence,
  rules: readonly Rule<unknown>[],
  others: readonly BlockReader[] = [],
): { gaps: Gap[]; ledger: HypothesisVerdict[]; ruleReads: (Reading<unknown> | undefined)[] } {
  const gaps = gapsReading(evidence);
  const ledger = hypothesesReading(evidence.db, loadLibrary());
  const ruleReads = rules.map((rule) => rule.reading?.(evidence));
  readBlocksOnce(evidence.db, [...others, ...gaps.readers, ...ledger.readers, ...ruleReads.flatMap((r) => r?.readers ?? [])]);
  return { gaps: gaps.finish(), ledger: ledger.finish().verdicts, ruleReads };
}

/** One rule over an incident with the verdict discipline applied: what `analyze` reports for it. */
export function runRule<Read>(rule: Rule<Read>, evidence: Evidence, replay?: ReplayEvidence): DisciplinedResult {
  const { gaps, ledger, ruleReads } = readShared(evidence, [rule]);
  const ran = rule.run({ evidence, gaps, ...(replay && { replay }) }, ruleReads[0]?.finish() as Read);
  return discipline(rule, ran, gaps, assumedSettings(replay), contradictions(ledger, rule.id));
}

/** Violated first, most severe first, then in rule order and time. */
function numberFindings(drafts: DraftFinding[]): NumberedFinding[] {
  const verdictOrder = { violated: 0, undetermined: 1, consistent: 2 } as const;
  const sorted = [...drafts].sort(
    (a, b) =>
      verdictOrder[a.verdict] - verdictOrder[b.verdict] ||
      severityRank(a.severity) - severityRank(b.severity) ||
      RULE_IDS.indexOf(a.rule) - RULE_IDS.indexOf(b.rule) ||
      (a.tsUs ?? 0) - (b.tsUs ?? 0),
  );
  return sorted.map((draft, i) => ({ id: `F${i + 1}`, draft }));
}

function toFinding(evidence: Evidence, { id, draft }: NumberedFinding): Finding {
  return {
    id,
    rule: draft.rule,
    severity: draft.severity,
    verdict: draft.verdict,
    title: draft.title,
    ...(draft.room !== undefined && { room: draft.room }),
    ranks: draft.ranks,
    ...(draft.tsUs !== undefined && { ts: isoTime(draft.tsUs) }),
    witness: draft.witness.map((ev) => evidence.witness(ev)),
    explanation: draft.explanation,
    falsify: draft.falsify,
    ...(draft.checked !== undefined && { checked: draft.checked }),
    ...(draft.missing !== undefined && { missing: draft.missing }),
    ...(draft.rooms !== undefined && draft.rooms.length > 0 && { rooms: draft.rooms }),
    ...(draft.count !== undefined && { count: draft.count }),
    ...(draft.assumptions !== undefined && draft.assumptions.length > 0 && { assumptions: draft.assumptions }),
  };
}

function incidentOf(evidence: Evidence, opts: AnalyzeOptions, assumed: AssumedSetting[]): Incident {
  const sources = evidence.sources();
  const firsts = sources.flatMap((s) => (s.firstTsUs === null ? [] : [s.firstTsUs]));
  const lasts = sources.flatMap((s) => (s.lastTsUs === null ? [] : [s.lastTsUs]));
  return {
    name: opts.name ?? basename(evidence.db.name),
    ...(firsts.length && { start: isoTime(Math.min(...firsts)) }),
    ...(lasts.length && { end: isoTime(Math.max(...lasts)) }),
    hosts: eventHosts(evidence.db),
    config: evidence.config().flat(),
    ...(opts.replay && { profile: { ...opts.replay.profile } }),
    ...(opts.replay && { assumed }),
  };
}

function coverageOf(evidence: Evidence, drafts: DraftFinding[], perRule: Coverage["rules"]): Coverage {
  const rankRows = evidence.rankRows().filter((r) => r.role !== null);
  const gaps = drafts.filter((d) => d.rule === "evidence-gap" && d.verdict === "violated").flatMap((d) => (d.facts?.gaps as CoverageGap[] | undefined) ?? []);
  return {
    sources: evidence.sources().length,
    events: evidence.eventCount(),
    ranks: [...new Set(rankRows.map((r) => evidence.rank(r)))].sort(),
    gaps,
    rules: perRule,
  };
}

/** Replaces the incident's stored findings, suspects and hypotheses' verdicts with this analysis. */
export function storeAnalysis(db: IncidentDb, report: Analysis): void {
  writeAnalysisRows(db, {
    header: { incident: report.incident, coverage: report.coverage, hypotheses: report.hypotheses },
    findings: report.findings.map((f) => ({
      id: f.id,
      rule: f.rule,
      severity: f.severity,
      verdict: f.verdict,
      title: f.title,
      room: f.room ?? null,
      ranks: f.ranks,
      tsUs: f.ts === undefined ? null : Date.parse(f.ts) * 1000,
      witnessSeqs: f.witness.map((w) => w.seq),
      body: f,
    })),
    suspects: report.suspects.map((s) => ({ rank: s.rank, cause: s.cause, confidence: s.confidence, body: s })),
  });
}

/** An analysis as stored: one stored before the hypotheses' verdicts were kept with it has none. */
const storedAnalysisSchema = analysisSchema.partial({ hypotheses: true });

/** The analysis stored by the last `storeAnalysis`, or undefined when none ran; checked against the JSON contract. */
export function loadAnalysis(db: IncidentDb): z.infer<typeof storedAnalysisSchema> | undefined {
  const rows = readAnalysisRows(db);
  if (rows === undefined) return undefined;
  const header = rows.header as Pick<Analysis, "incident" | "coverage" | "hypotheses">;
  return storedAnalysisSchema.parse({ ...header, findings: rows.findings.map((f) => f.body), suspects: rows.suspects.map((s) => s.body) });
}
