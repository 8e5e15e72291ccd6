// The checker's state while the scan runs: subject instances as rows of
// columns, state per correlation key, an agreement's first values. When a
// property correlates by room and the scan reports where rooms end, a room's
// keys are dropped once the scan is past its last record, so what is held is
// the rooms in flight rather than every room of the incident.

/** Told of each room a key names, so that the scan later reports when it is past the room (store/read/roomEnds.ts). */
export interface RoomTracker {
  track(room: string): void;
}

/**
 * The subject instances in flight, as rows of columns: an instance is held
 * while its own steps run and while it waits in an `after` clause for a
 * partner. Those waits can last to the end for a partner that never comes,
 * an instance per subject event, so each is a row of numbers rather than an
 * object. A row is reused once nothing holds it.
 */
export class Instances {
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
function grown<C extends Float64Array | Int32Array | Uint8Array | Uint32Array>(column: C, n: number): C {
  const out = new (column.constructor as new (n: number) => C)(n);
  out.set(column);
  return out;
}

/** A row of Instances. */
export type Instance = number;

/**
 * State per correlation key. A key that names a room (`room` passed to set)
 * is listed under it, so that `retire` drops the room's keys at once; keys
 * that name none are kept to the end.
 */
export class KeyedState<V> {
  private readonly entries = new Map<string, V>();
  private readonly keysOfRoom = new Map<string, string[]>();

  constructor(private readonly rooms: RoomTracker | undefined) {}

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: V, room: string | null): void {
    if (room !== null && this.rooms && !this.entries.has(key)) {
      this.rooms.track(room);
      const keys = this.keysOfRoom.get(room);
      if (keys) keys.push(key);
      else this.keysOfRoom.set(room, [key]);
    }
    this.entries.set(key, value);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  values(): IterableIterator<V> {
    return this.entries.values();
  }

  /** Drops the room's keys and returns what they held. */
  retire(room: string): V[] {
    const keys = this.keysOfRoom.get(room);
    if (!keys) return [];
    this.keysOfRoom.delete(room);
    const out: V[] = [];
    for (const key of keys) {
      const value = this.entries.get(key);
      if (value === undefined) continue;
      this.entries.delete(key);
      out.push(value);
    }
    return out;
  }
}

/**
 * An agreement's state per key in columns: the first event's seq and value,
 * whether a second event came and whether one disagreed. A key is kept for
 * every position the property names (a checksum's room, buffer, layer, pos
 * and rank: one per page checksummed) until its room is retired, so its state
 * is a slot in columns, not an object, and a retired key's slot is reused; the
 * first value's printed form is made only when a key disagrees.
 */
export class FirstValues {
  private readonly slots: KeyedState<number>;
  seq = new Float64Array(1024);
  private state = new Uint8Array(1024);
  readonly values: string[] = [];
  private readonly free: number[] = [];

  constructor(rooms: RoomTracker | undefined) {
    this.slots = new KeyedState(rooms);
  }

  slot(key: string): number | undefined {
    return this.slots.get(key);
  }

  add(key: string, seq: number, value: string, room: string | null): void {
    let slot = this.free.pop();
    if (slot === undefined) {
      slot = this.values.length;
      if (slot === this.seq.length) {
        this.seq = grown(this.seq, slot * 2);
        this.state = grown(this.state, slot * 2);
      }
      this.values.push(value);
    } else this.values[slot] = value;
    this.seq[slot] = seq;
    this.state[slot] = 0;
    this.slots.set(key, slot, room);
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

  retire(room: string): void {
    for (const slot of this.slots.retire(room)) {
      this.values[slot] = "";
      this.free.push(slot);
    }
  }
}

const AGAIN = 1;
const CONFLICT = 2;

/**
 * The instances a `has … after` clause found without a partner when their
 * room was retired, as the end of the pass would have met them: in the
 * order their keys began to wait, then their place in the key's list. Only
 * the first `kept` can become witnesses, so only those are kept.
 */
export class UnpartneredInstances {
  private entries: { order: number; place: number; subject: number }[] = [];

  constructor(private readonly kept: number) {}

  add(order: number, place: number, subject: number): void {
    this.entries.push({ order, place, subject });
    if (this.entries.length >= 2 * this.kept) this.entries = this.first();
  }

  /** The first `kept` of them, in that order. */
  first(): { order: number; place: number; subject: number }[] {
    return this.entries.sort((a, b) => a.order - b.order || a.place - b.place).slice(0, this.kept);
  }
}
