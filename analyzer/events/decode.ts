// decodeEvent: a stored event → its domain event. The only place attributes
// are read by key; each field is read as the catalogue types it, so the model
// and the rules share one reading of every line.

import type { StoredEvent } from "../../ingest/event.js";
import { LogKind } from "../../ingest/event.js";
import { kvPollFromName } from "../model/kvpoll.js";
import { isKnownKind, KINDS, type FieldSpec, type KnownKind } from "./catalogue.js";
import type { DomainEvent, EventOf, OtherEvent } from "./domainEvent.js";
import { readBoolean, readEnum, readKvPoll, readNumber, readRanges, readRecord, readString, type FieldType } from "./fields.js";

/** A stored event that can read one attribute without building its `attrs` (the replay's cursor). */
interface AttrLookup {
  attr?(key: string): unknown;
}

type Source = StoredEvent & AttrLookup;
type Out = Record<string, unknown>;
type Reader = (ev: Source, out: Out) => void;

function attrOf(ev: Source, key: string): unknown {
  return ev.attr !== undefined ? ev.attr(key) : ev.attrs?.[key];
}

function coerce(type: FieldType, v: unknown): unknown {
  switch (type) {
    case "string":
    case "room":
      return readString(v);
    case "number":
      return readNumber(v);
    case "boolean":
      return readBoolean(v);
    case "kvpoll":
      return readKvPoll(v);
    case "pages":
      return readRanges(v);
    case "record":
      return readRecord(v);
    case "json":
      return v;
    case "side":
    case "reasonKind":
      return readEnum(type, v);
  }
}

/** Fields kept in their own stored columns (ingest/event.ts ParsedEvent). */
const COLUMN_READERS: Record<string, (ev: Source) => unknown> = {
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

function fieldReader(name: string, spec: FieldSpec): Reader | undefined {
  if (typeof spec !== "string" && "derived" in spec) return undefined;
  const type = fieldType(spec);
  const keys = typeof spec === "string" ? [name] : spec.attr;
  const column = typeof spec === "string" ? COLUMN_READERS[name] : undefined;
  if (column !== undefined) {
    return (ev, out) => {
      const v = column(ev);
      if (v !== undefined) out[name] = v;
    };
  }
  return (ev, out) => {
    for (const key of keys) {
      const raw = attrOf(ev, key);
      if (raw === undefined || raw === null) continue;
      const v = coerce(type, raw);
      if (v === undefined) continue;
      out[name] = v;
      return;
    }
  };
}

const SIDE_OF_KIND: Record<string, "prefill" | "decode"> = {
  [LogKind.handshakeFailed]: "decode",
  [LogKind.bootstrapFailed]: "prefill",
};

/** The PD failure lines (docs/protocol.md §3.4–§3.5): which side, and whether and where a timeout fired. */
function deriveFailure(ev: Source, out: Out): void {
  out.side = SIDE_OF_KIND[ev.kind] ?? (ev.role === "prefill" || readString(attrOf(ev, "side")) === "prefill" ? "prefill" : "decode");
  out.timedOut = out.reasonKind === "timeout";
  const n = readNumber(attrOf(ev, "state"));
  const name = (out.timeoutState as string | undefined) ?? readString(attrOf(ev, "state"));
  const poll = n !== undefined && n >= 0 && n <= 4 ? n : name !== undefined ? kvPollFromName(name) : ev.state;
  if (poll !== null) out.timeoutPoll = poll;
}

const ALL_ATTRS = (key: string): Reader => (ev, out) => {
  out[key] = ev.attrs ?? {};
};

/** Fields decoded from more than one stored value. */
const DERIVED: Partial<Record<KnownKind, Reader>> = {
  [LogKind.handshakeFailed]: deriveFailure,
  [LogKind.transferFailed]: deriveFailure,
  [LogKind.bootstrapFailed]: deriveFailure,
  [LogKind.prefillBatch]: ALL_ATTRS("gauges"),
  [LogKind.decodeBatch]: ALL_ATTRS("gauges"),
  [LogKind.config]: ALL_ATTRS("settings"),
  checksum: (ev, out) => {
    const page = readNumber(attrOf(ev, "page")) ?? ev.pageLo;
    if (page !== null) out.page = page;
  },
};

function compile(kind: KnownKind): Reader[] {
  const readers: Reader[] = [];
  for (const [name, spec] of Object.entries(KINDS[kind].fields as Record<string, FieldSpec>)) {
    const r = fieldReader(name, spec);
    if (r !== undefined) readers.push(r);
  }
  const derive = DERIVED[kind];
  if (derive !== undefined) readers.push(derive);
  return readers;
}

const READERS = new Map<string, Reader[]>(Object.keys(KINDS).map((k) => [k, compile(k as KnownKind)]));

function envelope(ev: Source, kind: string): Out {
  return {
    kind,
    seq: ev.seq,
    tsUs: ev.tsUs,
    tsInferred: ev.tsInferred,
    sourceId: ev.sourceId,
    line: ev.line,
    host: ev.host,
    role: ev.role,
    dp: ev.dp,
    pp: ev.pp,
    tp: ev.tp,
    text: ev.text,
  };
}

function decodeOther(ev: Source): OtherEvent {
  const out = envelope(ev, "other");
  out.storedKind = ev.kind;
  for (const key of ["room", "rid", "chunk", "layer", "state", "pageLo", "pageHi"] as const) {
    const v = ev[key];
    if (v !== null) out[key] = v;
  }
  out.attrs = ev.attrs ?? {};
  return out as unknown as OtherEvent;
}

/** The event's meaning, decided once; an unknown kind is an `other` event, never an error. */
export function decodeEvent(ev: StoredEvent): DomainEvent {
  const readers = READERS.get(ev.kind);
  if (readers === undefined) return decodeOther(ev);
  const out = envelope(ev, ev.kind);
  for (let i = 0; i < readers.length; i++) readers[i]!(ev, out);
  return out as unknown as DomainEvent;
}

/** decodeEvent for a stored event known to be of kind `kind`, else undefined. */
export function decodeAs<K extends KnownKind>(ev: StoredEvent, ...kinds: K[]): EventOf<K> | undefined {
  return (kinds as string[]).includes(ev.kind) && isKnownKind(ev.kind) ? (decodeEvent(ev) as EventOf<K>) : undefined;
}
