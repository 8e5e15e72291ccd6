// The rooms of a model snapshot as tables. A wedged incident holds tens of
// thousands of live rooms with a sender per TP rank — millions of values; as
// nested arrays, decoding them would allocate a tree as large as the model it
// restores, and garbage collection would take most of a time-travel step. Here the
// numbers of every room, sender and receiver are Float64Array tables (null as
// NaN), laid out field by field so that equal neighbours compress; the
// snapshot codec stores them as raw bytes and gives them back without a value
// per number. Strings stay plain arrays; a reason (rare) is listed by the
// index of its sender or receiver. A restored registry reads its rooms from
// these tables until an event touches them (rooms.ts RoomRegistry), so each
// room also keeps what retirement and the timeouts ask of it.

import type { Profile } from "./api.js";
import type { KVPollValue } from "../../domain/vocabulary.js";
import { polledState, type StoredStatus } from "./kvpoll.js";
import { DecodeReceiver } from "./receiver.js";
import { RoomRec, RoomRegistry } from "./rooms.js";
import { PrefillSender } from "./sender.js";
import { grownF64, orNaN } from "./slots.js";
import { TransferStatus } from "./transferStatus.js";

/**
 * createdSeq, lastTsUs, flags, progressSeq, assumed, then the counts of
 * dstPorts, senders, receivers, inflight, then what the room's own methods
 * say at encode: its earliest deadline (µs, Infinity when none), settled(),
 * awaitsLateWrites().
 */
const ROOM_FIELDS = 12;
/** rank, initTsUs, initSeq, status, concluded, transferInfos, chunksPosted, pagesPosted, chunksDone, lastChunk, queue, changedSeq. */
const SENDER_FIELDS = 12;
/** rank, createdSeq, status, concluded, metaTsUs, metaSeq, auxIndex, abortNotified, changedSeq, freedSeq, then the counts of pages and successFrom. */
const RECEIVER_FIELDS = 12;

const S = { rank: 0, initTsUs: 1, initSeq: 2, status: 3, concluded: 4, transferInfos: 5, chunksPosted: 6, pagesPosted: 7, chunksDone: 8, lastChunk: 9, queue: 10, changedSeq: 11 } as const;
const R = { createdSeq: 0, lastTsUs: 1, flags: 2, progressSeq: 3, assumed: 4, ports: 5, senders: 6, receivers: 7, inflight: 8, deadline: 9, settled: 10, awaitsLate: 11 } as const;

/** A growing column of float64s. */
class Column {
  private a: Float64Array = new Float64Array(1024);
  n = 0;

  push(v: number): void {
    if (this.n === this.a.length) this.a = grownF64(this.a, this.a.length * 2);
    this.a[this.n++] = v;
  }

  pushAll(vs: readonly number[]): void {
    for (const v of vs) this.push(v);
  }

  values(): Float64Array {
    return this.a.slice(0, this.n);
  }

  /** The rows of `fields` values pushed, field by field: field f of row i at f * rows + i. */
  byField(fields: number): Float64Array {
    const rows = this.n / fields;
    const out = new Float64Array(this.n);
    for (let i = 0; i < rows; i++) for (let f = 0; f < fields; f++) out[f * rows + i] = this.a[i * fields + f]!;
    return out;
  }
}

/** A table laid out by Column.byField: field f of row i at `a[f * rows + i]`. */
class Table {
  readonly rows: number;
  constructor(
    readonly a: Float64Array,
    fields: number,
  ) {
    this.rows = a.length / fields;
  }

  at(i: number, f: number): number {
    return int(this.a[f * this.rows + i]!);
  }

  orNull(i: number, f: number): number | null {
    return intOrNull(this.a[f * this.rows + i]!);
  }
}

/**
 * A float64 that holds an integer, as a small integer: stored in a field as
 * a double, it would make V8 box that field in every sender and receiver.
 */
function int(x: number): number {
  return (x | 0) === x ? x | 0 : x;
}

function intOrNull(x: number): number | null {
  return x === x ? int(x) : null;
}

function earliestDeadline(r: RoomRec, profile: Profile): number {
  let due = Infinity;
  for (const s of r.prefill.values()) due = Math.min(due, s.bootstrapDeadlineUs(profile));
  for (const d of r.decode.values()) due = Math.min(due, d.waitingDeadlineUs(profile));
  return due;
}

/** [ids, rids, rooms, lists, senders, receivers, transfers, sender reasons, receiver reasons]. */
export function encodeRooms(reg: RoomRegistry, writeIds: (w: number) => number, profile: Profile): unknown[] {
  const ids: string[] = [];
  const rids: (string | null)[] = [];
  const rooms = new Column();
  const lists = new Column();
  const senders = new Column();
  const receivers = new Column();
  const transfers: unknown[] = [];
  const senderReasons: unknown[] = [];
  const receiverReasons: unknown[] = [];
  for (const r of reg.records()) {
    ids.push(r.room);
    rids.push(r.rid);
    const counts = [r.dstPorts.length, r.prefill.size, r.decode.size, r.inflight.length];
    for (const v of [r.createdSeq, r.lastTsUs, r.flags, r.progressSeq, r.assumed, ...counts, earliestDeadline(r, profile), r.settled() ? 1 : 0, r.awaitsLateWrites() ? 1 : 0]) {
      rooms.push(v);
    }
    lists.pushAll(r.dstPorts);
    for (const w of r.inflight) lists.push(writeIds(w));
    for (const s of r.prefill.values()) {
      if (s.reason !== null) senderReasons.push(senders.n / SENDER_FIELDS, s.reason);
      for (const v of [s.rank, s.initTsUs, s.initSeq, orNaN(s.status), orNaN(s.concluded), s.transferInfos, s.chunksPosted, s.pagesPosted, s.chunksDone, orNaN(s.lastChunk), orNaN(s.queue), s.changedSeq]) {
        senders.push(v);
      }
    }
    for (const d of r.decode.values()) {
      if (d.reason !== null) receiverReasons.push(receivers.n / RECEIVER_FIELDS, d.reason);
      const row = [d.rank, d.createdSeq, orNaN(d.status), orNaN(d.concluded), orNaN(d.metaTsUs), orNaN(d.metaSeq), orNaN(d.auxIndex), d.abortNotified ? 1 : 0, d.changedSeq, d.freedSeq, d.pages.length, d.successFrom.length];
      for (const v of row) receivers.push(v);
      lists.pushAll(d.pages);
      lists.pushAll(d.successFrom);
      transfers.push(d.transfer.encode());
    }
  }
  return [ids, rids, rooms.byField(ROOM_FIELDS), lists.values(), senders.byField(SENDER_FIELDS), receivers.byField(RECEIVER_FIELDS), transfers, senderReasons, receiverReasons];
}

/** What the state view reads of a sender (view.ts): a PrefillSender, or a stored row of one. */
export interface SenderFacts {
  readonly rank: number;
  readonly chunksPosted: number;
  readonly chunksDone: number;
  readonly queue: number | null;
  readonly changedSeq: number;
  poll(): KVPollValue;
}

/**
 * The stored senders of one room as one reused SenderFacts: each step of the
 * iteration copies the next row into its fields (no object per sender).
 */
class StoredSenders implements SenderFacts, Iterable<SenderFacts>, Iterator<SenderFacts> {
  rank = 0;
  chunksPosted = 0;
  chunksDone = 0;
  queue: number | null = null;
  changedSeq = 0;
  private status: StoredStatus = null;
  private concluded: KVPollValue | null = null;
  private i = 0;
  private end = 0;
  private readonly step: IteratorResult<SenderFacts> = { done: false, value: this };

  constructor(private readonly t: Table) {}

  of(first: number, count: number): this {
    this.i = first;
    this.end = first + count;
    return this;
  }

  [Symbol.iterator](): Iterator<SenderFacts> {
    return this;
  }

  next(): IteratorResult<SenderFacts> {
    const i = this.i++;
    const t = this.t;
    this.step.done = i >= this.end;
    if (i < this.end) {
      this.rank = t.at(i, S.rank);
      this.status = t.orNull(i, S.status) as StoredStatus;
      this.concluded = t.orNull(i, S.concluded) as KVPollValue | null;
      this.chunksPosted = t.at(i, S.chunksPosted);
      this.chunksDone = t.at(i, S.chunksDone);
      this.queue = t.orNull(i, S.queue);
      this.changedSeq = t.at(i, S.changedSeq);
    }
    return this.step;
  }

  poll(): KVPollValue {
    return polledState(this.concluded, this.status);
  }
}

const NO_RECEIVERS: readonly DecodeReceiver[] = [];

/** Prefix sums of per-room counts: the first sender, receiver and list value of each room. */
function starts(rooms: Table, receivers: Table): { sender: Int32Array; receiver: Int32Array; list: Int32Array } {
  const n = rooms.rows;
  const sender = new Int32Array(n);
  const receiver = new Int32Array(n);
  const list = new Int32Array(n);
  let s = 0;
  let d = 0;
  let l = 0;
  for (let i = 0; i < n; i++) {
    sender[i] = s;
    receiver[i] = d;
    list[i] = l;
    s += rooms.at(i, R.senders);
    l += rooms.at(i, R.ports) + rooms.at(i, R.inflight);
    for (let k = rooms.at(i, R.receivers); k > 0; k--, d++) l += receivers.at(d, 10) + receivers.at(d, 11);
  }
  return { sender, receiver, list };
}

function reasonsByIndex(list: unknown[]): Map<number, string> {
  const m = new Map<number, string>();
  for (let k = 0; k < list.length; k += 2) m.set(list[k] as number, list[k + 1] as string);
  return m;
}

/**
 * The rooms of a snapshot, read row by row: what retirement, the timeouts
 * and the state view ask of a room, and the room as a record when asked.
 */
export class StoredRooms {
  private readonly rooms: Table;
  private readonly senders: Table;
  private readonly receivers: Table;
  private readonly senderReasons: Map<number, string>;
  private readonly receiverReasons: Map<number, string>;
  private readonly start: ReturnType<typeof starts>;
  private readonly cursor: StoredSenders;

  constructor(
    readonly ids: readonly string[],
    private readonly rids: readonly (string | null)[],
    rooms: Float64Array,
    private readonly lists: Float64Array,
    senders: Float64Array,
    receivers: Float64Array,
    private readonly transfers: unknown[][],
    senderReasons: unknown[],
    receiverReasons: unknown[],
    private readonly writeById: (id: number) => number,
  ) {
    this.rooms = new Table(rooms, ROOM_FIELDS);
    this.senders = new Table(senders, SENDER_FIELDS);
    this.receivers = new Table(receivers, RECEIVER_FIELDS);
    this.senderReasons = reasonsByIndex(senderReasons);
    this.receiverReasons = reasonsByIndex(receiverReasons);
    this.start = starts(this.rooms, this.receivers);
    this.cursor = new StoredSenders(this.senders);
  }

  lastTsUs(row: number): number {
    return this.rooms.at(row, R.lastTsUs);
  }
  rid(row: number): string | null {
    return this.rids[row]!;
  }
  settled(row: number): boolean {
    return this.rooms.at(row, R.settled) === 1;
  }
  awaitsLateWrites(row: number): boolean {
    return this.rooms.at(row, R.awaitsLate) === 1;
  }
  deadlineUs(row: number): number {
    return this.rooms.at(row, R.deadline);
  }
  assumed(row: number): number {
    return this.rooms.at(row, R.assumed);
  }

  /** The room's senders, as one SenderFacts moved along; valid until the next call. */
  senderFacts(row: number): Iterable<SenderFacts> {
    return this.cursor.of(this.start.sender[row]!, this.rooms.at(row, R.senders));
  }

  /** The room's receivers, as new records. */
  receiversOf(row: number): readonly DecodeReceiver[] {
    const count = this.rooms.at(row, R.receivers);
    if (count === 0) return NO_RECEIVERS;
    const out: DecodeReceiver[] = [];
    const first = this.start.receiver[row]!;
    let list = this.start.list[row]! + this.rooms.at(row, R.ports) + this.rooms.at(row, R.inflight);
    for (let k = 0; k < count; k++) {
      out.push(this.receiver(first + k, list));
      list += this.receivers.at(first + k, 10) + this.receivers.at(first + k, 11);
    }
    return out;
  }

  materialize(row: number): RoomRec {
    const t = this.rooms;
    const r = new RoomRec(this.ids[row]!, t.at(row, R.createdSeq), t.at(row, R.lastTsUs));
    r.flags = t.at(row, R.flags);
    r.progressSeq = t.at(row, R.progressSeq);
    r.assumed = t.at(row, R.assumed);
    r.rid = this.rids[row]!;
    let list = this.start.list[row]!;
    // A new room already holds empty lists: most have nothing to fill them with.
    const ports = t.at(row, R.ports);
    if (ports > 0) r.dstPorts = this.numbers(list, ports);
    list += ports;
    const inflight = t.at(row, R.inflight);
    if (inflight > 0) r.inflight = this.numbers(list, inflight).map(this.writeById);
    const firstSender = this.start.sender[row]!;
    for (let k = 0; k < t.at(row, R.senders); k++) {
      const s = this.sender(firstSender + k);
      r.prefill.set(s.rank, s);
    }
    for (const d of this.receiversOf(row)) r.decode.set(d.rank, d);
    return r;
  }

  private numbers(from: number, n: number): number[] {
    const out = new Array<number>(n);
    for (let k = 0; k < n; k++) out[k] = int(this.lists[from + k]!);
    return out;
  }

  private sender(i: number): PrefillSender {
    const t = this.senders;
    const s = new PrefillSender(t.at(i, S.rank), t.at(i, S.initTsUs), t.at(i, S.initSeq));
    s.status = t.orNull(i, S.status) as StoredStatus;
    s.concluded = t.orNull(i, S.concluded) as KVPollValue | null;
    s.transferInfos = t.at(i, S.transferInfos);
    s.chunksPosted = t.at(i, S.chunksPosted);
    s.pagesPosted = t.at(i, S.pagesPosted);
    s.chunksDone = t.at(i, S.chunksDone);
    s.lastChunk = t.orNull(i, S.lastChunk);
    s.queue = t.orNull(i, S.queue);
    s.changedSeq = t.at(i, S.changedSeq);
    s.reason = this.senderReasons.get(i) ?? null;
    return s;
  }

  /** Receiver `i`, whose pages and successFrom start at list value `list`. */
  private receiver(i: number, list: number): DecodeReceiver {
    const t = this.receivers;
    const d = new DecodeReceiver(t.at(i, 0), t.at(i, 1));
    d.status = t.orNull(i, 2) as StoredStatus;
    d.concluded = t.orNull(i, 3) as KVPollValue | null;
    d.metaTsUs = t.orNull(i, 4);
    d.metaSeq = t.orNull(i, 5);
    d.auxIndex = t.orNull(i, 6);
    d.abortNotified = t.at(i, 7) === 1;
    d.changedSeq = t.at(i, 8);
    d.freedSeq = t.at(i, 9);
    const pages = t.at(i, 10);
    if (pages > 0) d.pages = this.numbers(list, pages);
    const successFrom = t.at(i, 11);
    if (successFrom > 0) d.successFrom = this.numbers(list + pages, successFrom);
    d.transfer = TransferStatus.decode(this.transfers[i]!);
    d.reason = this.receiverReasons.get(i) ?? null;
    return d;
  }
}

/** The registry encodeRooms wrote, every room a stored row until something needs it as a record. */
export function decodeRooms(a: unknown[], writeById: (id: number) => number): RoomRegistry {
  const [ids, rids, rooms, lists, senders, receivers, transfers, senderReasons, receiverReasons] = a as [
    string[], (string | null)[], Float64Array, Float64Array, Float64Array, Float64Array, unknown[][], unknown[], unknown[],
  ];
  const stored = new StoredRooms(ids, rids, rooms, lists, senders, receivers, transfers, senderReasons, receiverReasons, writeById);
  const registry = new RoomRegistry(stored);
  for (let i = 0; i < ids.length; i++) registry.addStored(ids[i]!, i, rids[i]!);
  return registry;
}
