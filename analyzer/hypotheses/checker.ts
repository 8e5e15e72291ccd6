// One streaming pass of a hypothesis over events in seq order
// (docs/hypotheses.md "How it is checked"). State is kept per correlation
// key: the last matching event for a `before` clause, the instances still
// waiting for a partner for an `after` clause, the first value seen for an
// agreement. Nothing else of the incident is held, and a key that names a
// room is dropped once the scan reports it past the room (`retire`).

import type { AgreeProperty, EveryProperty, Key, NeverProperty, OrderClause, Property, RequireClause } from "./ast.js";
import { accessorFor, type CheckedEvent } from "./fields.js";
import { closeEnough, compileCondition, compileKeys, compilePattern, roomOfKeys, type EventTest, type KeyFn, type RoomOf } from "./match.js";
import { distanceText, missedBefore, shown } from "./why.js";
import { conditionText, formatPattern } from "./printer.js";
import { fieldType } from "./catalogue.js";
import { FirstValues, Instances, KeyedState, UnpartneredInstances, type Instance, type RoomTracker } from "./state.js";

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

export type Handler = (ev: CheckedEvent) => void;

export class Checker {
  private readonly byKind = new Map<string, Handler[]>();
  private readonly tally: CheckTally;
  private readonly finishers: (() => void)[] = [];
  private readonly present: ReadonlySet<string> | undefined;
  private readonly rooms: RoomTracker | undefined;
  private readonly instances = new Instances();
  /** What each room-keyed state does when a room is retired. */
  private readonly retirers: ((room: string) => void)[] = [];

  /** Instances by their violation bits: a blind clause's bits are dropped at the end without keeping the instances. */
  private readonly byFlags = new Map<number, number>();
  /** Per order clause: partner-kind events that carry every field its pattern tests. */
  private readonly carriers: { clause: number; kind: string; fields: string[]; count: number }[] = [];

  /**
   * `present`: the kinds the incident holds; a clause whose partner kind is not among them is blind.
   * `rooms`: told of the rooms keys name; without it, every key is kept to the end.
   */
  constructor(property: Property, present?: ReadonlySet<string>, rooms?: RoomTracker) {
    this.present = present;
    this.rooms = rooms;
    const clauses = property.type === "every" ? property.clauses.length : 1;
    this.tally = { instances: 0, checked: 0, violated: 0, clauses: Array.from({ length: clauses }, () => ({ violations: 0, uncorrelated: 0 })), witnesses: [], kinds: new Map() };
    if (property.type === "agree") this.compileAgree(property);
    else if (property.type === "never") this.compileNever(property);
    else this.compileEvery(property);
  }

  /**
   * What `push` calls for each kind the property reads, in order: a pass
   * feeding several checkers looks an event's kind up once for all of them
   * rather than once per checker. Events of other kinds need not be fed.
   */
  handlersByKind(): ReadonlyMap<string, readonly Handler[]> {
    return this.byKind;
  }

  /** Feed the next event (seq order). */
  push(ev: CheckedEvent): void {
    const handlers = this.byKind.get(ev.kind);
    if (handlers === undefined) return;
    for (const h of handlers) h(ev);
  }

  /** The scan is past the room's last record: its keys can hold nothing more. */
  retire(room: string): void {
    for (const r of this.retirers) r(room);
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
    if (this.mark(inst, clause)) this.witness(clause, this.instances.seq[inst]!, other, why);
  }

  /** Counts the clause violated for the instance; false when it was already. */
  private mark(inst: Instance, clause: number): boolean {
    const bit = 1 << clause;
    const all = this.instances.flags;
    const flags = all[inst]!;
    if (flags & bit) return false;
    if (flags) this.byFlags.set(flags, this.byFlags.get(flags)! - 1);
    all[inst] = flags | bit;
    this.byFlags.set(flags | bit, (this.byFlags.get(flags | bit) ?? 0) + 1);
    this.tally.clauses[clause]!.violations++;
    return true;
  }

  private witness(clause: number, subject: number, other: number | undefined, why: string): void {
    if (this.tally.witnesses.length < MAX_WITNESSES) this.tally.witnesses.push({ clause, subject, ...(other !== undefined && { other }), why });
  }

  /** The event's room when the keys correlate by room and the scan retires rooms; null: the state is kept to the end. */
  private roomKey(keys: readonly Key[], ...kinds: string[]): RoomOf | null {
    return this.rooms ? roomOfKeys(keys, kinds) : null;
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
    const step = c.direction === "before" ? this.beforeStep(c, index, isOther, otherKeys, subjectKind) : this.afterStep(c, index, isOther, otherKeys, subjectKind);
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
    const last = new KeyedState<{ seq: number; tsUs: number; epoch: number }>(this.rooms);
    const roomOf = this.roomKey(c.same, subjectKind, c.other.kind);
    if (roomOf) this.retirers.push((room) => last.retire(room));
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
          } else last.set(k, { seq: ev.seq, tsUs: ev.tsUs, epoch }, roomOf ? roomOf(ev) : null);
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
    const counts = new KeyedState<number>(this.rooms);
    const roomOf = this.roomKey(shared, subjectKind, c.other.kind, since.kind);
    if (roomOf) this.retirers.push((room) => counts.retire(room));
    this.on(since.kind, (ev) => {
      if (!isSince(ev)) return;
      for (const k of sinceKey(ev) ?? []) counts.set(k, (counts.get(k) ?? 0) + 1, roomOf ? roomOf(ev) : null);
    });
    const of = (keys: readonly string[] | null) => (keys === null ? -1 : (counts.get(keys[0]!) ?? 0));
    return { ofOther: (ev) => of(otherKey(ev)), ofSubject: (ev) => of(subjectKey(ev)) };
  }

  /**
   * `has [no] Q after`: instances wait per key; the first Q after them
   * decides, the end of the incident (or of their room) decides the rest.
   */
  private afterStep(c: OrderClause, index: number, isOther: EventTest, otherKeys: KeyFn, subjectKind: string): KeyedStep {
    const waiting = new KeyedState<WaitList>(this.rooms);
    const roomOf = this.roomKey(c.same, subjectKind, c.other.kind);
    const unpartnered = new UnpartneredInstances(MAX_WITNESSES);
    let lists = 0;
    const near = closeEnough(c.within);
    const instances = this.instances;
    if (roomOf) this.retirers.push((room) => this.settleRoom(waiting.retire(room), c.exists ? { clause: index, unpartnered } : null));
    this.finishers.push(() => {
      if (c.exists) this.settleAtEnd(waiting.values(), unpartnered.first(), index, `no ${c.other.kind} after it`);
    });
    return {
      onOther: (ev) => {
        if (!isOther(ev)) return;
        for (const k of otherKeys(ev) ?? []) {
          const list = waiting.get(k);
          if (!list) continue;
          waiting.delete(k);
          for (const inst of list.rows) {
            const hit = near(instances.seq[inst]!, instances.tsUs[inst]!, ev);
            if (c.exists && !hit) this.violate(inst, index, ev.seq, `the first ${c.other.kind} after it is too far ${distanceText(c.within)}`);
            if (!c.exists && hit) this.violate(inst, index, ev.seq, `a ${c.other.kind} came after it`);
            instances.release(inst);
          }
        }
      },
      onSubject: (ev, inst, keys) => {
        const room = roomOf ? roomOf(ev) : null;
        for (const k of keys) {
          instances.hold(inst);
          const list = waiting.get(k);
          if (list) list.rows.push(inst);
          else waiting.set(k, { order: lists++, rows: [inst] }, room);
        }
      },
    };
  }

  /**
   * A retired room's waiting instances: no partner can come. A `has no …
   * after` holds for them; a `has … after` is violated, counted now, its
   * witnesses kept for the end, where they are met in the order of their keys.
   */
  private settleRoom(lists: WaitList[], violated: { clause: number; unpartnered: UnpartneredInstances } | null): void {
    lists.sort((a, b) => a.order - b.order);
    for (const list of lists) {
      list.rows.forEach((inst, place) => {
        if (violated && this.mark(inst, violated.clause)) violated.unpartnered.add(list.order, place, this.instances.seq[inst]!);
        this.instances.release(inst);
      });
    }
  }

  /** The end of the pass: the instances still waiting and those whose room ended unpartnered, in the order their keys began to wait. */
  private settleAtEnd(waiting: Iterable<WaitList>, unpartnered: { order: number; subject: number }[], clause: number, why: string): void {
    let next = 0;
    const witnessBefore = (order: number): void => {
      for (; next < unpartnered.length && unpartnered[next]!.order < order; next++) this.witness(clause, unpartnered[next]!.subject, undefined, why);
    };
    for (const list of waiting) {
      witnessBefore(list.order);
      for (const inst of list.rows) this.violate(inst, clause, undefined, why);
    }
    witnessBefore(Infinity);
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
    const first = new FirstValues(this.rooms);
    const roomOf = this.roomKey(p.same, p.subject.kind);
    if (roomOf) this.retirers.push((room) => first.retire(room));
    const tally = this.tally.clauses[0]!;
    this.on(p.subject.kind, (ev) => {
      if (!isSubject(ev)) return;
      const keys = keysOf(ev);
      if (keys === null) return void tally.uncorrelated++;
      const value = values(ev)?.[0] ?? "(absent)";
      const room = roomOf ? roomOf(ev) : null;
      for (const k of keys) {
        const slot = first.slot(k);
        if (slot === undefined) {
          first.add(k, ev.seq, value, room);
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

interface Step {
  kind?: string;
  direction?: "before" | "after";
  onOther?: Handler;
  /** Returns false when the subject lacks a correlation field (the clause is not checked for it). */
  onSubject(ev: CheckedEvent, inst: Instance): boolean;
}

/** The instances waiting under one key of an `after` clause; `order` counts the keys as they began to wait. */
interface WaitList {
  order: number;
  rows: Instance[];
}

interface KeyedStep {
  onOther: Handler;
  onSubject(ev: CheckedEvent, inst: Instance, keys: readonly string[]): void;
}
