// The rooms of a model snapshot as tables. A wedged incident holds tens of
// thousands of live rooms with a sender per TP rank — millions of values; as
// nested arrays, decoding them allocated a tree as large as the model it
// restored, and garbage collection took most of a time-travel step. Here the
// numbers of every room, sender and receiver are Float64Array tables (null as
// NaN), laid out field by field so that equal neighbours compress; the
// snapshot codec stores them as raw bytes and gives them back without a value
// per number. Strings stay plain arrays; a reason (rare) is listed by the
// index of its sender or receiver.

import type { KVPollValue } from "./api.js";
import type { StoredStatus } from "./kvpoll.js";
import { DecodeReceiver } from "./receiver.js";
import { RoomRec, RoomRegistry } from "./rooms.js";
import { PrefillSender } from "./sender.js";
import { grownF64, orNaN } from "./slots.js";
import { TransferStatus } from "./transferStatus.js";

/** createdSeq, lastTsUs, flags, progressSeq, assumed, then the counts of dstPorts, senders, receivers, inflight. */
const ROOM_FIELDS = 9;
/** rank, initTsUs, initSeq, status, concluded, transferInfos, chunksPosted, pagesPosted, chunksDone, lastChunk, queue, changedSeq. */
const SENDER_FIELDS = 12;
/** rank, createdSeq, status, concluded, metaTsUs, metaSeq, auxIndex, abortNotified, changedSeq, freedSeq, then the counts of pages and successFrom. */
const RECEIVER_FIELDS = 12;

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

/** [ids, rids, rooms, lists, senders, receivers, transfers, sender reasons, receiver reasons]. */
export function encodeRooms(reg: RoomRegistry, writeIds: (w: number) => number): unknown[] {
  const ids: string[] = [];
  const rids: (string | null)[] = [];
  const rooms = new Column();
  const lists = new Column();
  const senders = new Column();
  const receivers = new Column();
  const transfers: unknown[] = [];
  const senderReasons: unknown[] = [];
  const receiverReasons: unknown[] = [];
  for (const r of reg.rooms.values()) {
    ids.push(r.room);
    rids.push(r.rid);
    for (const v of [r.createdSeq, r.lastTsUs, r.flags, r.progressSeq, r.assumed, r.dstPorts.length, r.prefill.size, r.decode.size, r.inflight.length]) rooms.push(v);
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

/** Reads the columns encodeRooms wrote, in its order. */
class RoomColumnsReader {
  private list = 0;
  private sender = 0;
  private receiver = 0;
  private senderReason = 0;
  private receiverReason = 0;

  constructor(
    private readonly lists: Float64Array,
    private readonly senders: Table,
    private readonly receivers: Table,
    private readonly transfers: unknown[][],
    private readonly senderReasons: unknown[],
    private readonly receiverReasons: unknown[],
  ) {}

  numbers(n: number): number[] {
    const out = new Array<number>(n);
    for (let k = 0; k < n; k++) out[k] = int(this.lists[this.list++]!);
    return out;
  }

  nextSender(): PrefillSender {
    const i = this.sender++;
    const { a, rows: n } = this.senders;
    const s = new PrefillSender(int(a[i]!), int(a[n + i]!), int(a[2 * n + i]!));
    s.status = intOrNull(a[3 * n + i]!) as StoredStatus;
    s.concluded = intOrNull(a[4 * n + i]!) as KVPollValue | null;
    s.transferInfos = int(a[5 * n + i]!);
    s.chunksPosted = int(a[6 * n + i]!);
    s.pagesPosted = int(a[7 * n + i]!);
    s.chunksDone = int(a[8 * n + i]!);
    s.lastChunk = intOrNull(a[9 * n + i]!);
    s.queue = intOrNull(a[10 * n + i]!);
    s.changedSeq = int(a[11 * n + i]!);
    if (this.senderReasons[this.senderReason] === i) {
      s.reason = this.senderReasons[this.senderReason + 1] as string;
      this.senderReason += 2;
    }
    return s;
  }

  nextReceiver(): DecodeReceiver {
    const i = this.receiver++;
    const { a, rows: n } = this.receivers;
    const d = new DecodeReceiver(int(a[i]!), int(a[n + i]!));
    d.status = intOrNull(a[2 * n + i]!) as StoredStatus;
    d.concluded = intOrNull(a[3 * n + i]!) as KVPollValue | null;
    d.metaTsUs = intOrNull(a[4 * n + i]!);
    d.metaSeq = intOrNull(a[5 * n + i]!);
    d.auxIndex = intOrNull(a[6 * n + i]!);
    d.abortNotified = a[7 * n + i]! === 1;
    d.changedSeq = int(a[8 * n + i]!);
    d.freedSeq = int(a[9 * n + i]!);
    const pages = int(a[10 * n + i]!);
    if (pages > 0) d.pages = this.numbers(pages);
    const successFrom = int(a[11 * n + i]!);
    if (successFrom > 0) d.successFrom = this.numbers(successFrom);
    d.transfer = TransferStatus.decode(this.transfers[i]!);
    if (this.receiverReasons[this.receiverReason] === i) {
      d.reason = this.receiverReasons[this.receiverReason + 1] as string;
      this.receiverReason += 2;
    }
    return d;
  }
}

export function decodeRooms(a: unknown[], writeById: (id: number) => number): RoomRegistry {
  const [ids, rids, rooms, lists, senders, receivers, transfers, senderReasons, receiverReasons] = a as [
    string[], (string | null)[], Float64Array, Float64Array, Float64Array, Float64Array, unknown[][], unknown[], unknown[],
  ];
  const room = new Table(rooms, ROOM_FIELDS);
  const read = new RoomColumnsReader(lists, new Table(senders, SENDER_FIELDS), new Table(receivers, RECEIVER_FIELDS), transfers, senderReasons, receiverReasons);
  const reg = new RoomRegistry();
  for (let i = 0; i < ids.length; i++) {
    const r = new RoomRec(ids[i]!, room.at(i, 0), room.at(i, 1));
    r.flags = room.at(i, 2);
    r.progressSeq = room.at(i, 3);
    r.assumed = room.at(i, 4);
    r.rid = rids[i]!;
    // A new room already holds empty lists: most have nothing to fill them with.
    const ports = room.at(i, 5);
    if (ports > 0) r.dstPorts = read.numbers(ports);
    const inflight = room.at(i, 8);
    if (inflight > 0) r.inflight = read.numbers(inflight).map(writeById);
    for (let k = room.at(i, 6); k > 0; k--) {
      const s = read.nextSender();
      r.prefill.set(s.rank, s);
    }
    for (let k = room.at(i, 7); k > 0; k--) {
      const d = read.nextReceiver();
      r.decode.set(d.rank, d);
    }
    reg.rooms.set(r.room, r);
    if (r.rid !== null) reg.byRid.set(r.rid, r.room);
  }
  return reg;
}
