// Checking hypotheses against an incident: one pass over the store's events
// in seq order for all of them together, then each tally turned into a
// verdict with its witness lines (file:line:text of both events). The pass
// reads only the store's blocks that hold a kind the hypotheses name
// (store/blocks/scan.ts) and decodes only those events, and drops the state
// of each room it has passed (store/read/roomEnds.ts).

import type { IncidentDb } from "../../store/db.js";
import { eventBySeq } from "../../store/read/events.js";
import { kindsPresent } from "../../store/read/incident.js";
import { EventDecoder } from "../events/decode.js";
import { readOnce, type BlockReader, type Reading } from "../../store/blocks/pass.js";
import { RoomEnds } from "../../store/read/roomEnds.js";
import { Evidence, isoTime } from "../rules/evidence.js";
import type { Hypothesis, Property } from "./ast.js";
import { Checker, type CheckTally, type Handler } from "./checker.js";
import { formatClause, formatPattern, formatProperty } from "./printer.js";
import type { HypothesisVerdict, HypothesisWitness } from "./verdict.js";

/** Witnesses shown per hypothesis (the count says how many more). */
export const SHOWN_WITNESSES = 10;

export interface CheckRun {
  verdicts: HypothesisVerdict[];
  /** Events of the kinds the hypotheses name, the ones the pass decoded. */
  events: number;
}

export function checkHypotheses(db: IncidentDb, hypotheses: readonly Hypothesis[]): CheckRun {
  return readOnce(db, hypothesesReading(db, hypotheses));
}

/** checkHypotheses as one reader of a pass shared with other stages (store/blocks/pass.ts). */
export function hypothesesReading(db: IncidentDb, hypotheses: readonly Hypothesis[]): Reading<CheckRun> {
  // From the blocks' side table: counting events by kind would read every block, as many as the pass itself.
  const present = kindsPresent(db);
  const rooms = new RoomEnds(db);
  const checkers = hypotheses.map((h) => new Checker(h.property, present, rooms));
  const retire = (room: string): void => {
    for (const c of checkers) c.retire(room);
  };
  const handlers = handlersByKind(checkers);
  // One view for every event: the checkers copy what they keep (a seq, a time), as of the pass's cursor.
  const decoder = new EventDecoder();
  let events = 0;
  const reader: BlockReader = {
    kinds: [...handlers.keys()],
    visit(ev) {
      rooms.passTo(ev.seq, retire);
      events++;
      const kind = ev.kind;
      const decoded = decoder.decode(ev, kind);
      for (const h of handlers.get(kind)!) h(decoded);
    },
  };
  const finish = (): CheckRun => {
    const evidence = new Evidence(db);
    return { events, verdicts: hypotheses.map((h, i) => decide(evidence, h, checkers[i]!.finish())) };
  };
  return { readers: [reader], finish };
}

/** Every checker's handlers of each kind, checker by checker: one lookup per event feeds them all. */
function handlersByKind(checkers: readonly Checker[]): Map<string, Handler[]> {
  const all = new Map<string, Handler[]>();
  for (const c of checkers) {
    for (const [kind, handlers] of c.handlersByKind()) {
      const list = all.get(kind);
      if (list) list.push(...handlers);
      else all.set(kind, [...handlers]);
    }
  }
  return all;
}

function decide(evidence: Evidence, h: Hypothesis, tally: CheckTally): HypothesisVerdict {
  const p = h.property;
  const missing = missingEvidence(p, tally);
  const verdict = tally.violated > 0 ? "violated" : missing.length > 0 ? "undetermined" : "consistent";
  const witnesses = tally.witnesses.slice(0, SHOWN_WITNESSES).map((w): HypothesisWitness => {
    const other = w.other === undefined ? undefined : witnessOf(evidence, w.other);
    return { clause: w.clause, why: w.why, subject: witnessOf(evidence, w.subject)!, ...(other && { other }) };
  });
  return {
    ...(h.name && { name: h.name }),
    ...(h.statement && { statement: h.statement }),
    property: formatProperty(p),
    verdict,
    instances: tally.instances,
    checked: tally.checked,
    violated: tally.violated,
    rate: tally.checked > 0 ? tally.violated / tally.checked : null,
    clauses: tally.clauses.map((c, i) => ({ text: clauseText(p, i), violations: c.violations, uncorrelated: c.uncorrelated, blind: c.blind !== undefined })),
    witnesses,
    missing,
    explanation: explain(p, verdict, tally, missing),
  };
}

function witnessOf(evidence: Evidence, seq: number): HypothesisWitness["subject"] | undefined {
  const ev = eventBySeq(evidence.db, seq);
  return ev && { ...evidence.witness(ev), rank: evidence.rank(ev), ts: isoTime(ev.tsUs) };
}

function missingEvidence(p: Property, tally: CheckTally): string[] {
  const subjectEvents = tally.kinds.get(p.subject.kind) ?? 0;
  if (subjectEvents === 0) return [`no ${p.subject.kind} event in the incident`];
  if (tally.instances === 0)
    return [p.type === "agree" ? `no two ${formatPattern(p.subject)} events share a key` : `no ${formatPattern(p.subject)} (${subjectEvents} ${p.subject.kind} event(s), none matching)`];
  const out: string[] = [];
  tally.clauses.forEach((c, i) => c.blind && out.push(`${c.blind} (needed by: ${clauseText(p, i)})`));
  if (tally.checked === 0) out.push(`no ${p.subject.kind} carries the fields the property correlates by`);
  return out;
}

function clauseText(p: Property, i: number): string {
  if (p.type === "never") return `no ${formatPattern(p.subject)}`;
  return p.type === "agree" ? `agree on ${p.fields.join(", ")}` : formatClause(p.clauses[i]!);
}

function explain(p: Property, verdict: HypothesisVerdict["verdict"], t: CheckTally, missing: string[]): string {
  const subject = formatPattern(p.subject);
  if (verdict === "violated" && p.type === "never") return `${t.violated} of ${t.checked} ${p.subject.kind} event(s) are a ${subject}.`;
  if (verdict === "violated") return `${t.violated} of ${t.checked} ${subject} instance(s) break the property.`;
  if (verdict === "consistent" && p.type === "never") return `None of the ${t.checked} ${p.subject.kind} event(s) is a ${subject}.`;
  if (verdict === "consistent") return `All ${t.checked} ${subject} instance(s) checked meet the property.`;
  return `Cannot decide: ${missing.join("; ")}.`;
}
