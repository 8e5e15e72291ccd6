// The rules that rest on the reference model: the replay's raw violations of
// one check (plus any the rule derives from the same evidence) become
// findings, one per cause and mechanism (DESIGN.md "Findings": one finding
// listing its rooms): the first room's first violation is the witness, a few
// other rooms add theirs, every rank any of them names is listed; the
// coverage says how much was checked; without a replay the rule is undetermined.

import type { Reading } from "../../store/blocks/pass.js";
import type { StoredEvent } from "../../store/read/events.js";
import type { CheckId, Profile, Violation } from "../model/api.js";
import { uniqueEvents, type Evidence } from "./evidence.js";
import type { RuleId, Severity } from "../../domain/vocabulary.js";
import { coverageOf, violationsOf, type ReplayEvidence } from "./replayEvidence.js";
import { consistent, undetermined, type Because, type DraftFinding, type Rule, type RuleContext, type RuleResult } from "./rule.js";

export interface ModelRuleSpec<Read = void> {
  id: RuleId & CheckId;
  needs: readonly string[];
  severity: Severity;
  /** `more`: how many other rooms the finding groups with this one. */
  title(v: Violation, more: number): string;
  /** What makes two rooms' violations one finding (the same mechanism); when absent, one finding for all rooms and one per violation without a room. */
  mechanism?(v: Violation): string;
  /** "Let … Then … but …" from the violation and its witness events (in the violation's order). */
  explain(v: Violation, witness: (StoredEvent | undefined)[], evidence: Evidence): string;
  falsify: string;
  /** Each "because" the explanation states, from the same witness events (DraftFinding.because). */
  because?(v: Violation, witness: (StoredEvent | undefined)[]): [StoredEvent | undefined, StoredEvent | undefined][];
  facts?(v: Violation): Record<string, unknown>;
  /** Profile settings the model's verdict rests on (Rule.restsOn). */
  restsOn?: (keyof Profile)[];
  /** Profile fields whose stating records witness a violation the model raised from the profile alone. */
  profileFields?: (keyof Profile)[];
  /** What `derive` reads of the blocks, in the pass the rules share (Rule.reading). */
  reading?(evidence: Evidence): Reading<Read>;
  /** Violations of this rule that follow from other evidence (another check's violations, late records). */
  derive?(ctx: RuleContext & { replay: ReplayEvidence }, read: Read): Violation[];
  /** Cite where the room's violations on other ranks and layers failed (their reads), beside the first's witness. */
  citeOthers?: boolean;
  /** The lines another room of a grouped finding adds to its witness: the event where its check failed, by default. */
  representative?(v: Violation): number[];
  /** Puts a violation's witness in the order the explanation reads it. */
  witnessOrder?(v: Violation): number[];
  /**
   * Records that back a violation up (the config lines that state a setting):
   * every one names a rank of the finding; the first of each host, role and kind joins the witness.
   */
  support?(v: Violation, evidence: Evidence): StoredEvent[];
}

/** A room's other violations cited in its witness, at most. */
const MAX_OTHER_WITNESSES = 8;
/** Other rooms of a grouped finding whose violation joins the witness, at most. */
const REPRESENTATIVE_ROOMS = 3;

const NO_REPLAY = "a replay of the reference model over probe records (kv.*, kernel.*, hicache.*)";

export function modelRule<Read = void>(spec: ModelRuleSpec<Read>): Rule<Read> {
  return {
    id: spec.id,
    needs: spec.needs,
    ...(spec.restsOn && { restsOn: spec.restsOn }),
    ...(spec.reading && { reading: spec.reading }),
    run(ctx, read): RuleResult {
      const { evidence, replay } = ctx;
      if (!replay) {
        return undetermined(spec.id, `No replay: ${spec.id} cannot be checked`, [NO_REPLAY], `This rule is decided by the reference model's checks, which did not run.`);
      }
      const violations = [...violationsOf(replay, spec.id), ...(spec.derive?.({ ...ctx, replay }, read) ?? [])];
      const coverage = coverageOf(replay, spec.id);
      const checked = coverage?.checked ?? 0;
      if (violations.length === 0) {
        if (coverage?.undetermined) {
          return undetermined(spec.id, `${spec.id}: not enough evidence`, [coverage.undetermined],
            `The model could check ${checked} case(s); ${coverage.undetermined}.`, checked);
        }
        return consistent(spec.id, `${spec.id}: no violation in ${checked} checked case(s)`,
          `The model replayed the incident under the ${replay.profile.backend} v${replay.profile.version} profile and checked ${checked} case(s) without a violation.`, checked);
      }
      return { checked, findings: byMechanism(spec, byRoom(violations)).map((group) => toFinding(spec, group, evidence, replay)) };
    },
  };
}

interface RoomViolations {
  first: Violation;
  all: Violation[];
}

/** Violations grouped by room, rooms in order of their first violation; violations without a room stand alone. */
function byRoom(violations: Violation[]): RoomViolations[] {
  const rooms = new Map<string, RoomViolations>();
  for (const v of [...violations].sort((a, b) => a.seq - b.seq)) {
    const key = v.room ?? `${v.check}#${v.seq}#${JSON.stringify(v.detail)}`;
    const seen = rooms.get(key);
    if (seen) seen.all.push(v);
    else rooms.set(key, { first: v, all: [v] });
  }
  return [...rooms.values()];
}

/** Rooms whose first violations share a mechanism, in order of the first room. */
function byMechanism(spec: ModelRuleSpec<unknown>, rooms: RoomViolations[]): RoomViolations[][] {
  const groups = new Map<string, RoomViolations[]>();
  for (const [i, r] of rooms.entries()) {
    const key = spec.mechanism?.(r.first) ?? (r.first.room !== undefined ? "" : `#${i}`);
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  return [...groups.values()];
}

function toFinding(spec: ModelRuleSpec<unknown>, group: RoomViolations[], evidence: Evidence, replay: ReplayEvidence): DraftFinding {
  const lead = roomFinding(spec, group[0]!, evidence, replay);
  if (group.length === 1) return lead;
  const rest = group.slice(1);
  const rooms = group.flatMap((r) => (r.first.room !== undefined ? [r.first.room] : []));
  const ranks = new Set(lead.ranks);
  for (const r of rest) for (const v of r.all) if (v.rank) ranks.add(v.rank);
  const shown = rest.slice(0, REPRESENTATIVE_ROOMS).flatMap((r) => (spec.representative?.(r.first) ?? [r.first.seq]).flatMap((seq) => (seq >= 0 ? evidence.event(seq) ?? [] : [])));
  const named = rest.slice(0, 10).map((r) => r.first.room ?? `seq ${r.first.seq}`).join(", ");
  return {
    ...lead,
    title: spec.title(group[0]!.first, rest.length),
    ranks: [...ranks].sort(),
    witness: uniqueEvents([...lead.witness, ...shown]),
    explanation: `${lead.explanation} The same happened to ${rest.length} more ${rooms.length ? "room(s)" : "case(s)"}: ${named}${rest.length > 10 ? " …" : ""}.`,
    ...(rooms.length > 1 && { rooms }),
    count: rooms.length > 1 ? rooms.length : group.length,
    ...(assumed(group.flatMap((r) => r.all)).length && { assumptions: assumed(group.flatMap((r) => r.all)) }),
    facts: { ...lead.facts, violations: group.reduce((n, r) => n + r.all.length, 0), groupRooms: rooms },
  };
}

function roomFinding(spec: ModelRuleSpec<unknown>, { first: v, all }: RoomViolations, evidence: Evidence, replay: ReplayEvidence): DraftFinding {
  const own = spec.witnessOrder?.(v) ?? v.witness;
  const support = spec.support?.(v, evidence) ?? [];
  const fromProfile = own.length > 0 || support.length > 0 ? [] : (spec.profileFields ?? []).flatMap((f) => replay.profileEvidence[f] ?? []);
  const seqs = own.length > 0 ? own : [...new Set(fromProfile)].sort((a, b) => a - b);
  const events = seqs.map((seq) => (seq >= 0 ? evidence.event(seq) : undefined));
  const perHost = support.filter((e, i) => support.findIndex((o) => o.host === e.host && o.role === e.role && o.kind === e.kind) === i);
  // The room's other violations (another rank, another layer) add the event where each failed (their read, say).
  const where = (x: Violation): string => `${x.rank}|${String(x.detail.layer)}`;
  const others = spec.citeOthers ? all.filter((x, i) => where(x) !== where(v) && all.findIndex((o) => where(o) === where(x)) === i).slice(0, MAX_OTHER_WITNESSES) : [];
  const witness = uniqueEvents([...events.filter((e): e is StoredEvent => e !== undefined), ...others.flatMap((x) => evidence.event(x.seq) ?? []), ...perHost]);
  const ranks = new Set(all.flatMap((x) => (x.rank ? [x.rank] : [])));
  for (const ev of support) ranks.add(evidence.rank(ev));
  return {
    rule: spec.id,
    severity: spec.severity,
    verdict: "violated",
    title: spec.title(v, 0),
    ...(v.room !== undefined && { room: v.room }),
    ranks: [...ranks].sort(),
    tsUs: v.tsUs,
    witness,
    explanation: spec.explain(v, [...events, ...perHost], evidence),
    falsify: spec.falsify,
    ...(spec.because && { because: becausePairs(spec.because(v, events)) }),
    ...(assumed(all).length && { assumptions: assumed(all) }),
    facts: { ...v.detail, ...(spec.facts?.(v) ?? {}), violations: all.length },
  };
}

function becausePairs(pairs: [StoredEvent | undefined, StoredEvent | undefined][]): Because[] {
  return pairs.flatMap(([cause, effect]) => (cause && effect ? [{ cause, effect }] : []));
}

/** What the model had to assume to apply the violations' events (model/rooms.ts ASSUMED), once each. */
function assumed(vs: Violation[]): string[] {
  return [...new Set(vs.flatMap((v) => (Array.isArray(v.detail.assumptions) ? (v.detail.assumptions as string[]) : [])))];
}

/** "file:line" of a witness event, or a note that the model named none. */
export function at(evidence: Evidence, ev: StoredEvent | undefined): string {
  return ev ? evidence.where(ev) : "no recorded line";
}

export function detailOf(v: Violation, key: string): string {
  const x = v.detail[key];
  return x === undefined || x === null ? "?" : String(x);
}
