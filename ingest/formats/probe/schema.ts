// The probe record schema (DESIGN.md "Probe JSONL record"): one zod schema
// per `ev`, each field described where it is declared, so that the docs
// (docs/evidence.md §3, rendered by fieldDocs.ts) and the reader say the same.
// A field of the wrong shape is left out of the event and reported with its
// line (probeJsonl.ts): never read as an impossible number. Fields no schema
// names are kept as they are.

import { z } from "zod";
import { KVPOLL_NAMES } from "../../../domain/vocabulary.js";
import { certainFieldsPass } from "./certainPass.js";

const digits = z.string().regex(/^\d+$/);
/** Integers past 2^53 arrive as digit strings (numerals.ts parseJsonExact). */
const int = z.union([z.number().int(), digits]);
const count = z.union([z.number().int().nonnegative(), digits]);
const number = z.union([z.number(), z.string().regex(/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/)]);
/** SGLang's bootstrap_room, a 63-bit integer (written bare; read without loss). */
const room = z.union([z.number().int().nonnegative(), digits]);
const pageRange = z
  .tuple([count, count])
  .refine(([lo, hi]) => Number(lo) <= Number(hi), "a page range is [first, end) with first ≤ end");
const pages = z.array(pageRange).min(1);
const kvpoll = z.union([z.number().int().min(0).max(4), z.enum(KVPOLL_NAMES), z.string().regex(new RegExp(`^KVPoll\\.(${KVPOLL_NAMES.join("|")})$`))]);
/** A layer count, or the half-open range [first, end) of the layers a load covers. */
const layers = z.union([
  z.number().int().positive(),
  z.tuple([count, count]).refine(([a, b]) => Number(b) > Number(a), "a layer range is [first, end) with end > first"),
]);

const REQUEST = {
  room: room.optional(),
  rid: z.string().optional().describe("the request id"),
};

/** Per `ev`, its own fields; every record also has ts, ev and the identity fields (ENVELOPE). */
export const PROBE_FIELDS = {
  "req.arrive": REQUEST,
  "req.finish": REQUEST,
  "req.abort": { ...REQUEST, reason: z.string().optional().describe("why it was aborted") },
  "kv.alloc": { room: room.optional(), pages: pages.optional().describe("decode pages given to the room"), buffer: z.string().optional().describe("`kv` or `index_k`") },
  "kv.free": { room: room.optional(), pages: pages.optional().describe("decode pages taken from the room"), buffer: z.string().optional().describe("`kv` or `index_k`") },
  "kv.meta": {
    room: room.optional(),
    pages: pages.optional().describe("the decode pages the metadata names, in the room's order: a post without `dst_pages` writes into these, chunk after chunk"),
    dst: z.string().optional().describe("decode's address"),
    aux_index: count.optional().describe("the metadata buffer index"),
  },
  "kv.post": {
    room: room.optional(),
    chunk: count.optional().describe("the chunk index"),
    last: z.boolean().optional().describe("the room's last chunk"),
    pages: pages.optional().describe("prefill pages the write reads"),
    dst_pages: pages.optional().describe("decode pages it writes into, when the hook knows them; absent: the next pages of the room's `kv.meta`"),
    bytes: count.optional().describe("bytes posted"),
    queue: count.optional().describe("the transfer queue"),
  },
  "kv.done": { room: room.optional(), chunk: count.optional().describe("the chunk whose transfer handle reported done"), last: z.boolean().optional() },
  "kv.notify": {
    room: room.optional(),
    tag: z.string().optional().describe("a NIXL notification tag, e.g. `…_kv_2_1_0`, `…_aux`, `…_state_0_0` (docs/protocol.md §6)"),
    status: kvpoll.optional().describe("a Mooncake status (KVPoll)"),
  },
  "kv.poll": { room: room.optional(), local: kvpoll.optional().describe("the rank's own poll (KVPoll 0..4)"), reduced: kvpoll.optional().describe("the MIN over ranks the scheduler acts on") },
  "kv.timeout": { room: room.optional(), state: kvpoll.optional().describe("the state it timed out in"), after_s: number.optional().describe("seconds waited") },
  "boot.msg": { room: room.optional(), kind: z.string().optional().describe("the frame: `meta`, `register`, `ABORT`, …") },
  "boot.exit": { error: z.string().optional().describe("what ended the thread") },
  "hicache.load": {
    room: room.optional(),
    slot: int.optional().describe("the load's slot"),
    layers: layers.optional().describe("a layer count, or the half-open range `[first, end)` of layers the load covers"),
    pages: pages.optional(),
  },
  "hicache.layer": { slot: int.optional(), layer: count.optional().describe("the layer that completed") },
  "hicache.wait": { slot: int.optional(), layer: count.optional().describe("the layer waited on"), accessor: z.string().optional().describe("who waited") },
  "kernel.store": { room: room.optional(), buffer: z.string().optional(), layer: count.optional(), pages: pages.optional(), locs: z.unknown().optional().describe("token locations, when not whole pages") },
  "kernel.read": {
    room: room.optional(),
    buffer: z.string().optional(),
    layer: count.optional(),
    pages: pages.optional(),
    consumer: int.optional().describe("the HiCache slot the reader waited for, or -1"),
  },
  "sched.iter": { iter: count.optional().describe("the iteration number"), branch: z.string().optional().describe("`run_batch`, `on_idle`, …") },
  "coll.enter": { group: z.string().optional(), op: z.string().optional(), seq: count.optional().describe("the collective's sequence number in its group"), site: z.string().optional(), digest: z.string().optional() },
  "coll.exit": { group: z.string().optional(), op: z.string().optional(), seq: count.optional(), site: z.string().optional(), digest: z.string().optional() },
  config: {
    backend: z.string().optional().describe("`nixl` or `mooncake`"),
    version: z.string().optional().describe("SGLang's version, e.g. `0.5.14`"),
    index_k_dtype: z.string().optional().describe("`fp8` or `bf16`"),
    page_size: count.optional().describe("index-K tokens per page"),
    kv_page_size: count.optional(),
    hicache: z.boolean().optional(),
    overlap: z.boolean().optional(),
    index_k_bytes_per_token: count.optional().describe("as the pool was sized"),
    host_index_k_page_stride: count.optional().describe("bytes"),
    transfer_queues: count.optional(),
    bootstrap_timeout_s: number.optional(),
    waiting_timeout_s: number.optional(),
    max_context: count.optional(),
  },
} as const satisfies Record<string, z.ZodRawShape>;

export type ProbeEv = keyof typeof PROBE_FIELDS;

export const ENVELOPE = {
  ts: z.union([number, z.string().regex(/^\d+$/)]).describe("epoch seconds (a float), or integer nanoseconds"),
  ev: z.string().min(1),
  host: z.string().min(1).optional(),
  role: z.enum(["prefill", "decode", "router", "unknown"]).optional(),
  dp: count.optional(),
  pp: count.optional(),
  tp: count.optional(),
} as const;

/** What each shared field shape is called in the docs (fieldDocs.ts). */
export const SHAPE_NAMES = new Map<z.ZodType, string>([
  [int, "integer"],
  [count, "integer ≥ 0"],
  [number, "number"],
  [room, "room"],
  [pages, "page ranges `[[first, end), …]`"],
  [kvpoll, "KVPoll (0–4 or its name)"],
  [layers, "count or `[first, end)`"],
]);

// Only the problems of a parse are read, never its output, so the fields no
// schema names need no checking: a plain object schema passes over them (a
// passthrough one ran each through z.unknown(), a third of a probe record's
// validation). A record that certainly passes (certainPass.ts) is not parsed.
const SCHEMAS = new Map(
  Object.entries(PROBE_FIELDS).map(([ev, fields]) => [ev, { schema: z.object(fields as z.ZodRawShape), passes: certainFieldsPass(fields as z.ZodRawShape) }]),
);

/** A field of the record that is not of its documented shape: left out of the event. */
export interface FieldProblem {
  field: string;
  message: string;
}

/** The fields of a probe record of a known `ev` that break its schema (unknown `ev`s have none). */
export function fieldProblems(ev: string, rec: Record<string, unknown>): FieldProblem[] {
  const known = SCHEMAS.get(ev);
  if (!known || known.passes(rec)) return [];
  const result = known.schema.safeParse(rec);
  if (result.success) return [];
  const seen = new Set<string>();
  const out: FieldProblem[] = [];
  for (const issue of result.error.issues) {
    const field = String(issue.path[0] ?? "");
    if (field === "" || seen.has(field)) continue;
    seen.add(field);
    out.push({ field, message: issue.message });
  }
  return out;
}

/**
 * A `layers` range `[first, end)` as the model reads a load: SGLang's
 * LayerDoneCounter numbers a load's layers from 0 and the load is done when
 * layer end − 1 completes (docs/hicache-indexk.md §1.2), so `layers` is the
 * range's end and `first_layer` keeps where it began.
 */
export function layerRange(v: unknown): { end: number; first: number } | undefined {
  if (!Array.isArray(v) || v.length !== 2) return undefined;
  const [first, end] = v.map(Number) as [number, number];
  return Number.isInteger(first) && Number.isInteger(end) && end > first ? { end, first } : undefined;
}
