// One streaming pass of a hypothesis over events in seq order
// (docs/hypotheses.md "How it is checked"). State is kept per correlation
// key: the last matching event for a `before` clause, the instances still
// waiting for a partner for an `after` clause, the first value seen for an
// agreement. Nothing else of the incident is held.

import type { AgreeProperty, Distance, EveryProperty, NeverProperty, OrderClause, Property, RequireClause } from "./ast.js";
import { accessorFor, type CheckedEvent } from "./fields.js";
import { compileCondition, compileKeys, compilePattern, type EventTest, type KeyFn } from "./match.js";
import { conditionText, formatPattern } from "./printer.js";
import { fieldType } from "./catalogue.js";

/** One violated instance: the subject, the event that conflicts with it (if one does), and why. */
export interface ViolationRef {
  clause: number;
  subject: number;
  other?: number;
  why: string;
}

export interface ClauseTally {
  violations: number;
  /** Why the clause could not be checked at all (its violations are not counted), if it could not. */
  blind?: string;
  /** Instances this clause could not be checked for: the subject lacks a correlation field. */
  uncorrelated: number;
}

export interface CheckTally {
  /** Subject events (agreement: keys seen on two events or more). */
  instances: number;
  /** Instances every clause could be checked for. */
  checked: number;
  violated: number;
  clauses: ClauseTally[];
  /** The first violations found, in subject order. */
  witnesses: ViolationRef[];
  /** Events seen of each kind the property names. */
  kinds: Map<string, number>;
}

export const MAX_WITNESSES = 50;

/**
 * The subject instances in flight, as rows of columns: an instance is held
 * while its own steps run and while it waits in an `after` clause for a
 * partner. Those waits last to the end for a partner that never comes (a
 * `has no … after` holds), an instance per subject event, so each is a row
 * of numbers rather than an object. A row is reused once nothing holds it.
 */
class Instances {
  seq = new Float64Array(1024);
  tsUs = new Float64Array(1024);
  /** Bit i: clause i is violated for this instance. */
  flags = new Int32Array(1024);
  private holds = new Uint32Array(1024);
  private readonly free: number[] = [];
  private next = 0;

  /** A new instance, held once by the caller. */
  open(seq: number, tsUs: number): number {
    let row = this.free.pop();
    if (row === undefined) {
      if (this.next === this.seq.length) this.grow();
      row = this.next++;
    }
    this.seq[row] = seq;
    this.tsUs[row] = tsUs;
    this.flags[row] = 0;
    this.holds[row] = 1;
    return row;
  }

  hold(row: number): void {
    this.holds[row]!++;
  }

  release(row: number): void {
    if (--this.holds[row]! === 0) this.free.push(row);
  }

  private grow(): void {
    const n = this.seq.length * 2;
    this.seq = grown(this.seq, n);
    this.tsUs = grown(this.tsUs, n);
    this.flags = grown(this.flags, n);
    this.holds = grown(this.holds, n);
  }
}

/** A copy of `column` with room for `n` values. */
function grown<C extends Float64Array | Int32Array | Uint32Array>(column: C, n: number): C {
  const out = new (column.constructor as new (n: number) => C)(n);
  out.set(column);
  return out;
}

/** A row of Instances. */
type Instance = number;

type Handler = (ev: CheckedEvent) => void;

export class Checker {
  private readonly byKind = new Map<string, Handler[]>();
  private readonly tally: CheckTally;
  private readonly finishers: (() => void)[] = [];
  private readonly present: ReadonlySet<string> | undefined;
  private readonly instances = new Instances();

  /** Instances by their violation bits: a blind clause's bits are dropped at the end without keeping the instances. */
  private readonly byFlags = new Map<number, number>();
  /** Per order clause: partner-kind events that carry every field its pattern tests. */
  private readonly carriers: { clause: number; kind: string; fields: string[]; count: number }[] = [];

  /** `present`: the kinds the incident holds; a clause whose partner kind is not among them is blind. */
  constructor(property: Property, present?: ReadonlySet<string>) {
    this.present = present;
    const clauses = property.type === "every" ? property.clauses.length : 1;
    this.tally = { instances: 0, checked: 0, violated: 0, clauses: Array.from({ length: clauses }, () => ({ violations: 0, uncorrelated: 0 })), witnesses: [], kinds: new Map() };
    if (property.type === "agree") this.compileAgree(property);
    else if (property.type === "never") this.compileNever(property);
    else this.compileEvery(property);
  }

  /** The kinds the property reads: events of other kinds need not be fed. */
  kinds(): string[] {
    return [...this.byKind.keys()];
  }

  /** Feed the next event (seq order). */
  push(ev: CheckedEvent): void {
    const handlers = this.byKind.get(ev.kind);
    if (handlers === undefined) return;
    for (const h of handlers) h(ev);
  }

  finish(): CheckTally {
    for (const f of this.finishers) f();
    for (const c of this.carriers) if (c.count === 0) this.tally.clauses[c.clause]!.blind = `no ${c.kind} event carries ${c.fields.join(", ")}`;
    let blindBits = 0;
    this.tally.clauses.forEach((c, i) => c.blind && (blindBits |= 1 << i));
    for (const [flags, n] of this.byFlags) if (flags & ~blindBits) this.tally.violated += n;
    this.tally.witnesses = this.tally.witnesses.filter((w) => !((1 << w.clause) & blindBits));
    this.tally.witnesses.sort((a, b) => a.subject - b.subject || a.clause - b.clause);
    return this.tally;
  }

  private on(kind: string, h: Handler): void {
    let list = this.byKind.get(kind);
    if (!list) {
      list = [];
      this.byKind.set(kind, list);
      // A plain counter per kind, copied into the tally at the end: a Map update per event is a visible share of the pass.
      const seen = { count: 0 };
      this.finishers.push(() => this.tally.kinds.set(kind, seen.count));
      list.push(() => seen.count++);
    }
    list.push(h);
  }

  private violate(inst: Instance, clause: number, other: number | undefined, why: string): void {
    const bit = 1 << clause;
    const all = this.instances.flags;
    const flags = all[inst]!;
    if (flags & bit) return;
    if (flags) this.byFlags.set(flags, this.byFlags.get(flags)! - 1);
    all[inst] = flags | bit;
    this.byFlags.set(flags | bit, (this.byFlags.get(flags | bit) ?? 0) + 1);
    this.tally.clauses[clause]!.violations++;
    if (this.tally.witnesses.length < MAX_WITNESSES) this.tally.witnesses.push({ clause, subject: this.instances.seq[inst]!, ...(other !== undefined && { other }), why });
  }

  /** A violation of an instance that lives only for it (a `never` match, an agreement's first event). */
  private violateOnce(seq: number, tsUs: number, clause: number, other: number | undefined, why: string): void {
    const inst = this.instances.open(seq, tsUs);
    this.violate(inst, clause, other, why);
    this.instances.release(inst);
  }

  private compileEvery(p: EveryProperty): void {
    const isSubject = compilePattern(p.subject);
    const subjectSteps = p.clauses.map((c, i): Step => {
      if (c.type === "require") return this.requireStep(p.subject.kind, c, i);
      if (this.present && !this.present.has(c.other.kind)) {
        this.tally.clauses[i]!.blind = `no ${c.other.kind} event in the incident`;
        return { onSubject: () => true };
      }
      return this.orderStep(p.subject.kind, c, i);
    });
    const steps = subjectSteps.map((s) => s.onSubject);
    // A partner of an `after` clause is applied before the subject (an event does not follow itself), of a `before` clause after it.
    for (const s of subjectSteps) if (s.kind && s.direction === "after") this.on(s.kind, s.onOther!);
    this.on(p.subject.kind, (ev) => {
      if (!isSubject(ev)) return;
      const inst = this.instances.open(ev.seq, ev.tsUs);
      this.tally.instances++;
      let correlated = true;
      for (const step of steps) correlated = step(ev, inst) && correlated;
      if (correlated) this.tally.checked++;
      this.instances.release(inst);
    });
    for (const s of subjectSteps) if (s.kind && s.direction === "before") this.on(s.kind, s.onOther!);
  }

  private requireStep(kind: string, c: RequireClause, index: number): Step {
    const tests = c.conditions.map((x) => ({ test: compileCondition(kind, x), text: conditionText(x) }));
    return {
      onSubject: (ev, inst) => {
        const failed = tests.find((t) => !t.test(ev));
        if (failed) this.violate(inst, index, undefined, `it does not meet ${failed.text}`);
        return true;
      },
    };
  }

  private orderStep(subjectKind: string, c: OrderClause, index: number): Step {
    const isOther = compilePattern(c.other);
    const subjectKeys = compileKeys(subjectKind, c.same, "subject");
    const otherKeys = compileKeys(c.other.kind, c.same, "other");
    const tally = this.tally.clauses[index]!;
    this.countCarriers(c, index);
    const step = c.direction === "before" ? this.beforeStep(c, index, isOther, otherKeys, subjectKind) : this.afterStep(c, index, isOther, otherKeys);
    return {
      kind: c.other.kind,
      direction: c.direction,
      onOther: step.onOther,
      onSubject: (ev, inst) => {
        const keys = subjectKeys(ev);
        if (keys === null) {
          tally.uncorrelated++;
          return false;
        }
        step.onSubject(ev, inst, keys);
        return true;
      },
    };
  }

  /** `has [no] Q before [since the last R]`: the last Q per key decides (one from before the key's last R does not count). */
  private beforeStep(c: OrderClause, index: number, isOther: EventTest, otherKeys: KeyFn, subjectKind: string): KeyedStep {
    const last = new Map<string, { seq: number; tsUs: number; epoch: number }>();
    const near = closeEnough(c.within);
    const epochs = this.sinceEpochs(c, subjectKind);
    return {
      onOther: (ev) => {
        if (!isOther(ev)) return;
        const epoch = epochs.ofOther(ev);
        for (const k of otherKeys(ev) ?? []) {
          const seen = last.get(k);
          if (seen) {
            seen.seq = ev.seq;
            seen.tsUs = ev.tsUs;
            seen.epoch = epoch;
          } else last.set(k, { seq: ev.seq, tsUs: ev.tsUs, epoch });
        }
      },
      onSubject: (ev, inst, keys) => {
        const epoch = epochs.ofSubject(ev);
        for (const k of keys) {
          const q = last.get(k);
          const hit = q !== undefined && q.epoch === epoch && near(q.seq, q.tsUs, ev);
          if (c.exists && !hit) this.violate(inst, index, q?.seq, missedBefore(c, q === undefined ? "none" : q.epoch !== epoch ? "stale" : "far"));
          if (!c.exists && hit) this.violate(inst, index, q.seq, `a ${c.other.kind} came before it`);
        }
      },
    };
  }

  /** A partner pattern testing fields no event of its kind has cannot be met: the clause is blind, not violated. */
  private countCarriers(c: OrderClause, index: number): void {
    const fields = [...new Set(c.other.where.map((w) => w.field))];
    if (fields.length === 0) return;
    const entry = { clause: index, kind: c.other.kind, fields, count: 0 };
    this.carriers.push(entry);
    const gets = fields.map((f) => accessorFor(c.other.kind, f));
    this.on(c.other.kind, (ev) => {
      if (entry.count === 0 && gets.every((g) => g(ev) !== null)) entry.count++;
    });
  }

  /**
   * `since the last R`: a counter per R key (the clause's keys that R has),
   * bumped at each R; a partner counts only if it was seen in the subject's
   * current count.
   */
  private sinceEpochs(c: OrderClause, subjectKind: string): { ofOther: (ev: CheckedEvent) => number; ofSubject: (ev: CheckedEvent) => number } {
    if (!c.since) return { ofOther: () => 0, ofSubject: () => 0 };
    const since = c.since;
    const shared = c.same.filter((k) => k.field === "rank" || fieldType(since.kind, k.other ?? k.field) !== undefined);
    const sinceKey = compileKeys(since.kind, shared, "other");
    const subjectKey = compileKeys(subjectKind, shared, "subject");
    const otherKey = compileKeys(c.other.kind, shared, "other");
    const isSince = compilePattern(since);
    const counts = new Map<string, number>();
    this.on(since.kind, (ev) => {
      if (!isSince(ev)) return;
      for (const k of sinceKey(ev) ?? []) counts.set(k, (counts.get(k) ?? 0) + 1);
    });
    const of = (keys: string[] | null) => (keys === null ? -1 : (counts.get(keys[0]!) ?? 0));
    return { ofOther: (ev) => of(otherKey(ev)), ofSubject: (ev) => of(subjectKey(ev)) };
  }

  /** `has [no] Q after`: instances wait per key; the first Q after them decides, the end of the incident decides the rest. */
  private afterStep(c: OrderClause, index: number, isOther: EventTest, otherKeys: KeyFn): KeyedStep {
    const waiting = new Map<string, Instance[]>();
    const near = closeEnough(c.within);
    const instances = this.instances;
    this.finishers.push(() => {
      if (c.exists) for (const list of waiting.values()) for (const inst of list) this.violate(inst, index, undefined, `no ${c.other.kind} after it`);
    });
    return {
      onOther: (ev) => {
        if (!isOther(ev)) return;
        for (const k of otherKeys(ev) ?? []) {
          const list = waiting.get(k);
          if (!list) continue;
          waiting.delete(k);
          for (const inst of list) {
            const hit = near(instances.seq[inst]!, instances.tsUs[inst]!, ev);
            if (c.exists && !hit) this.violate(inst, index, ev.seq, `the first ${c.other.kind} after it is too far ${distanceText(c.within)}`);
            if (!c.exists && hit) this.violate(inst, index, ev.seq, `a ${c.other.kind} came after it`);
            instances.release(inst);
          }
        }
      },
      onSubject: (_ev, inst, keys) => {
        for (const k of keys) {
          instances.hold(inst);
          const list = waiting.get(k);
          if (list) list.push(inst);
          else waiting.set(k, [inst]);
        }
      },
    };
  }

  /** Every event of the kind is an instance; each that matches violates. */
  private compileNever(p: NeverProperty): void {
    const matches = compilePattern(p.subject);
    this.on(p.subject.kind, (ev) => {
      this.tally.instances++;
      this.tally.checked++;
      if (matches(ev)) this.violateOnce(ev.seq, ev.tsUs, 0, undefined, `a ${formatPattern(p.subject)}`);
    });
  }

  private compileAgree(p: AgreeProperty): void {
    const isSubject = compilePattern(p.subject);
    const keysOf = compileKeys(p.subject.kind, p.same, "subject");
    const values = compileKeys(p.subject.kind, p.fields.map((field) => ({ field })), "subject");
    const first = new FirstValues();
    const tally = this.tally.clauses[0]!;
    this.on(p.subject.kind, (ev) => {
      if (!isSubject(ev)) return;
      const keys = keysOf(ev);
      if (keys === null) return void tally.uncorrelated++;
      const value = values(ev)?.[0] ?? "(absent)";
      for (const k of keys) {
        const slot = first.slot(k);
        if (slot === undefined) {
          first.add(k, ev.seq, value);
          continue;
        }
        if (first.seeAgain(slot)) {
          this.tally.instances++;
          this.tally.checked++;
        }
        const seen = first.values[slot]!;
        if (seen !== value && first.conflict(slot)) {
          this.violateOnce(first.seq[slot]!, 0, 0, ev.seq, `${shown(p.fields, seen)} here, ${shown(p.fields, value)} there`);
        }
      }
    });
  }
}

/**
 * An agreement's state per key in columns: the first event's seq and value,
 * whether a second event came and whether one disagreed. A key is kept for
 * every position the property names (a checksum's room, buffer, layer, pos
 * and rank: one per page checksummed) to the end of the pass, so its state
 * is a slot in columns, not an object; the first value's printed form is
 * made only when a key disagrees.
 */
class FirstValues {
  private readonly slots = new Map<string, number>();
  seq = new Float64Array(1024);
  private state = new Uint8Array(1024);
  readonly values: string[] = [];

  slot(key: string): number | undefined {
    return this.slots.get(key);
  }

  add(key: string, seq: number, value: string): void {
    const slot = this.values.length;
    if (slot === this.seq.length) {
      const seqs = new Float64Array(slot * 2);
      seqs.set(this.seq);
      this.seq = seqs;
      const state = new Uint8Array(slot * 2);
      state.set(this.state);
      this.state = state;
    }
    this.seq[slot] = seq;
    this.values.push(value);
    this.slots.set(key, slot);
  }

  /** Marks a second event on the key; true the first time. */
  seeAgain(slot: number): boolean {
    if (this.state[slot]! & AGAIN) return false;
    this.state[slot] |= AGAIN;
    return true;
  }

  /** Marks the key as disagreed on; true the first time. */
  conflict(slot: number): boolean {
    if (this.state[slot]! & CONFLICT) return false;
    this.state[slot] |= CONFLICT;
    return true;
  }
}

const AGAIN = 1;
const CONFLICT = 2;

interface Step {
  kind?: string;
  direction?: "before" | "after";
  onOther?: Handler;
  /** Returns false when the subject lacks a correlation field (the clause is not checked for it). */
  onSubject(ev: CheckedEvent, inst: Instance): boolean;
}

interface KeyedStep {
  onOther: Handler;
  onSubject(ev: CheckedEvent, inst: Instance, keys: string[]): void;
}

function closeEnough(within: Distance | undefined): (earlierSeq: number, earlierTsUs: number, later: { seq: number; tsUs: number }) => boolean {
  if (!within) return () => true;
  if ("us" in within) return (_seq, tsUs, b) => b.tsUs - tsUs <= within.us;
  return (seq, _tsUs, b) => b.seq - seq <= within.events;
}

/** Why a `has Q before` clause failed: no Q, the last Q came before the last `since` event, or it is out of reach. */
function missedBefore(c: OrderClause, why: "none" | "stale" | "far"): string {
  if (why === "none") return `no ${c.other.kind} before it`;
  if (why === "stale") return `the last ${c.other.kind} before it came before the last ${c.since!.kind}`;
  return `the last ${c.other.kind} before it is too far ${distanceText(c.within)}`;
}

function distanceText(within: Distance | undefined): string {
  if (!within) return "";
  return "us" in within ? `(more than ${within.us / 1000} ms)` : `(more than ${within.events} events)`;
}

function shown(fields: readonly string[], value: string): string {
  const parts = value.split("\u0001");
  return fields.map((f, i) => `${f}=${parts[i] ?? ""}`).join(", ");
}
