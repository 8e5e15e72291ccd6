// decodeEvent: a stored event → its domain event. The only place attributes
// are read by key; each field is read as the catalogue types it, so the model
// and the rules share one reading of every line.
//
// A decoded event is a view: one small object per event that reads its time
// and rank when it is made and each other field from the stored event when
// the field is asked for (decoding every field of every event up front cost
// the replay two to three times its model work; handlers read a few fields of
// each). Over the replay's cursor, read the fields while the event is being
// handled, as with the cursor itself; over a plain stored event, any time.
// The model decodes into one reused view (EventDecoder).

import type { StoredEvent } from "../../domain/event.js";
import { LogKind, TelemetryKind } from "../../domain/kinds.js";
import { seriesLabels } from "../../domain/telemetry.js";
import { kvPollFromName } from "../../domain/vocabulary.js";
import { isKnownKind, KINDS, type FieldSpec, type KnownKind } from "../../domain/kinds.js";
import type { DomainEvent, EventOf } from "../../domain/domainEvent.js";
import { readBoolean, readEnum, readKvPoll, readNumber, readRanges, readRecord, readString, type FieldType } from "../../domain/fields.js";

/** A stored event that can read one attribute without building its `attrs` (the replay's cursor). */
interface AttrLookup {
  attr?(key: string): unknown;
}

type Source = StoredEvent & AttrLookup;
type Read = (ev: Source) => unknown;

function attrOf(ev: Source, key: string): unknown {
  return ev.attr !== undefined ? ev.attr(key) : ev.attrs?.[key];
}

const COERCE: Record<FieldType, (v: unknown) => unknown> = {
  string: readString,
  room: readString,
  number: readNumber,
  boolean: readBoolean,
  kvpoll: readKvPoll,
  pages: readRanges,
  record: readRecord,
  json: (v) => v,
  side: (v) => readEnum("side", v),
  reasonKind: (v) => readEnum("reasonKind", v),
};

/** Fields kept in their own stored columns (domain/event.ts ParsedEvent). */
const COLUMN_READS: Record<string, Read> = {
  room: (ev) => ev.room ?? undefined,
  rid: (ev) => ev.rid ?? undefined,
  chunk: (ev) => ev.chunk ?? undefined,
  layer: (ev) => ev.layer ?? readNumber(attrOf(ev, "layer")),
  state: (ev) => readKvPoll(ev.state),
  pages: (ev) => readRanges(attrOf(ev, "pages")) ?? (ev.pageLo !== null && ev.pageHi !== null ? [[ev.pageLo, ev.pageHi]] : undefined),
};

function fieldType(spec: FieldSpec): FieldType {
  const typed = typeof spec === "string" ? spec : spec.type;
  return (typed.endsWith("?") ? typed.slice(0, -1) : typed) as FieldType;
}

/** Reads memoized by field name and spec: kinds that share a field share its read, so a field's getter calls one function whatever the kind. */
const STORED_READS = new Map<string, Read>();

/** How a stored field is read: its column, or its attribute(s) as the type says (the first that reads wins). */
function storedRead(name: string, spec: FieldSpec): Read {
  const key = `${name} ${JSON.stringify(spec)}`;
  let read = STORED_READS.get(key);
  if (read === undefined) STORED_READS.set(key, (read = makeStoredRead(name, spec)));
  return read;
}

function makeStoredRead(name: string, spec: FieldSpec): Read {
  const coerce = COERCE[fieldType(spec)];
  if (typeof spec === "string") {
    const column = COLUMN_READS[name];
    if (column !== undefined) return column;
    return (ev) => {
      const raw = attrOf(ev, name);
      return raw === undefined || raw === null ? undefined : coerce(raw);
    };
  }
  const keys = "attr" in spec ? spec.attr : [];
  return (ev) => {
    for (const key of keys) {
      const raw = attrOf(ev, key);
      const v = raw === undefined || raw === null ? undefined : coerce(raw);
      if (v !== undefined) return v;
    }
    return undefined;
  };
}

const SIDE_OF_KIND: Record<string, "prefill" | "decode"> = {
  [LogKind.handshakeFailed]: "decode",
  [LogKind.bootstrapFailed]: "prefill",
};

const readReasonKind = storedRead("reasonKind", "reasonKind?");
const readTimeoutState = storedRead("timeoutState", "string?");

/** The PD failure lines (docs/protocol.md §3.4–§3.5): which side, and whether and where a timeout fired. */
const FAILURE_DERIVED: Record<string, Read> = {
  side: (ev) => SIDE_OF_KIND[ev.kind] ?? (ev.role === "prefill" || readString(attrOf(ev, "side")) === "prefill" ? "prefill" : "decode"),
  timedOut: (ev) => readReasonKind(ev) === "timeout",
  timeoutPoll: (ev) => {
    const n = readNumber(attrOf(ev, "state"));
    if (n !== undefined && n >= 0 && n <= 4) return n;
    const name = (readTimeoutState(ev) as string | undefined) ?? readString(attrOf(ev, "state"));
    return (name !== undefined ? kvPollFromName(name) : ev.state) ?? undefined;
  },
};

const allAttrs: Read = (ev) => ev.attrs ?? {};

/** A sample's labels, read back from its series text (domain/telemetry.ts seriesLabels). */
const sampleLabels = (ev: Source): Record<string, string> => seriesLabels(readString(attrOf(ev, "series")) ?? "");

/** Fields decoded from more than one stored value, or from all of them. */
const DERIVED: Partial<Record<KnownKind, Record<string, Read>>> = {
  [LogKind.handshakeFailed]: FAILURE_DERIVED,
  [LogKind.transferFailed]: FAILURE_DERIVED,
  [LogKind.bootstrapFailed]: FAILURE_DERIVED,
  [LogKind.prefillBatch]: { gauges: allAttrs },
  [LogKind.decodeBatch]: { gauges: allAttrs },
  [LogKind.config]: { settings: allAttrs },
  checksum: { page: (ev) => readNumber(attrOf(ev, "page")) ?? ev.pageLo ?? undefined },
  [TelemetryKind.metricSample]: { labels: sampleLabels, model: (ev) => sampleLabels(ev).model_name, engine: (ev) => sampleLabels(ev).engine_type },
};

const STORED = Symbol("stored");
const READS = Symbol("reads");

/** A kind's reads, one per field slot (FIELD_SLOTS); undefined where the kind lacks the field. */
type ReadTable = readonly (Read | undefined)[];

/**
 * Every decoded event is an EventView, whatever its kind: one class, so the
 * model's shared code (a rank, a room, a time) reads one shape of object.
 * Its kind's table says how each of its fields is read. The envelope fields
 * nearly every handler reads (time, place, rank) are read once, when the
 * view is pointed at its event; the others when asked for.
 */
class EventView {
  kind = "";
  seq = 0;
  tsUs = 0;
  host: string | null = null;
  role: Source["role"] = null;
  tp: number | null = null;
  [STORED]!: Source;
  [READS]: ReadTable = [];

  /** Points the view at stored event `ev` of kind `kind` (as the view names it), read through `reads`. */
  point(ev: Source, kind: string, reads: ReadTable): this {
    this.kind = kind;
    this.seq = ev.seq;
    this.tsUs = ev.tsUs;
    this.host = ev.host;
    this.role = ev.role;
    this.tp = ev.tp;
    this[STORED] = ev;
    this[READS] = reads;
    return this;
  }
  get tsInferred(): boolean {
    return this[STORED].tsInferred;
  }
  get timeless(): boolean {
    return this[STORED].timeless === true;
  }
  get sourceId(): number {
    return this[STORED].sourceId;
  }
  get line(): number {
    return this[STORED].line;
  }
  get dp(): number | null {
    return this[STORED].dp;
  }
  get pp(): number | null {
    return this[STORED].pp;
  }
  get text(): string {
    return this[STORED].text;
  }
}

function kindReads(kind: KnownKind): Record<string, Read> {
  const reads: Record<string, Read> = {};
  for (const [name, spec] of Object.entries(KINDS[kind].fields as Record<string, FieldSpec>)) {
    if (typeof spec === "string" || !("derived" in spec)) reads[name] = storedRead(name, spec);
  }
  return Object.assign(reads, DERIVED[kind]);
}

/** An event of a kind no catalogue entry names: its columns and its attributes as stored. */
const OTHER_READS: Record<string, Read> = {
  storedKind: (ev) => ev.kind,
  room: (ev) => ev.room ?? undefined,
  rid: (ev) => ev.rid ?? undefined,
  chunk: (ev) => ev.chunk ?? undefined,
  layer: (ev) => ev.layer ?? undefined,
  state: (ev) => ev.state ?? undefined,
  pageLo: (ev) => ev.pageLo ?? undefined,
  pageHi: (ev) => ev.pageHi ?? undefined,
  attrs: allAttrs,
};

const NAMED_READS = new Map<string, Record<string, Read>>(Object.keys(KINDS).map((k) => [k, kindReads(k as KnownKind)]));

/** Every field name of any kind, numbered: a kind's reads are an array by these numbers (one element load, whatever the kind). */
const FIELD_SLOTS = new Map([...new Set([...[...NAMED_READS.values()].flatMap((r) => Object.keys(r)), ...Object.keys(OTHER_READS)])].map((name, i) => [name, i]));

function readTable(reads: Record<string, Read>): ReadTable {
  const table = new Array<Read | undefined>(FIELD_SLOTS.size).fill(undefined);
  for (const [name, read] of Object.entries(reads)) table[FIELD_SLOTS.get(name)!] = read;
  return table;
}

const READS_OF_KIND = new Map<string, ReadTable>([...NAMED_READS].map(([k, r]) => [k, readTable(r)]));
const OTHER_TABLE = readTable(OTHER_READS);

// One getter per field name of any kind; a field its kind lacks is undefined.
for (const [name, slot] of FIELD_SLOTS) {
  Object.defineProperty(EventView.prototype, name, {
    get(this: EventView) {
      const read = this[READS][slot];
      return read === undefined ? undefined : read(this[STORED]);
    },
  });
}

function pointView(view: EventView, ev: StoredEvent, kind: string): DomainEvent {
  const reads = READS_OF_KIND.get(kind);
  return (reads === undefined ? view.point(ev, "other", OTHER_TABLE) : view.point(ev, kind, reads)) as unknown as DomainEvent;
}

/**
 * Field `name` of decoded events of kind `kind`, read straight from each
 * one's stored event as its getter would: for a reader that reads a field of
 * many events through one function (the hypotheses' accessors), where
 * `ev[name]` would be a property lookup by name on every call. Only for events
 * from decodeEvent or an EventDecoder, of that kind.
 */
export function fieldReader(kind: string, name: string): (ev: DomainEvent) => unknown {
  const slot = FIELD_SLOTS.get(name);
  const read = slot === undefined ? undefined : (READS_OF_KIND.get(kind) ?? OTHER_TABLE)[slot];
  if (read === undefined) return () => undefined;
  return (ev) => read((ev as unknown as EventView)[STORED]);
}

/** The event's meaning, decided once; an unknown kind is an `other` event, never an error. */
export function decodeEvent(ev: StoredEvent): DomainEvent {
  return pointView(new EventView(), ev, ev.kind);
}

/**
 * decodeEvent into one view, reused: each event it returns is valid until the
 * next call. For a walk over the replay's cursor, whose event is itself one
 * reused object, so that decoding allocates nothing per event.
 */
export class EventDecoder {
  private readonly view = new EventView();

  /** `ev` decoded; `kind` is `ev.kind`, when the caller has read it already. */
  decode(ev: StoredEvent, kind: string = ev.kind): DomainEvent {
    return pointView(this.view, ev, kind);
  }
}

/** decodeEvent for a stored event known to be of kind `kind`, else undefined. */
export function decodeAs<K extends KnownKind>(ev: StoredEvent, ...kinds: K[]): EventOf<K> | undefined {
  return (kinds as string[]).includes(ev.kind) && isKnownKind(ev.kind) ? (decodeEvent(ev) as EventOf<K>) : undefined;
}

/** A batch line's gauge (`#transfer-req`, `token usage`, …) as a number, when the line carries it (docs/log-templates.md batch lines). */
export function batchGauge(ev: EventOf<"batch.prefill" | "batch.decode">, name: string): number | undefined {
  const v = ev.gauges[name];
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}
