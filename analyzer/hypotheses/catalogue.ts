// The events a pattern may name, and their fields with types: the probe
// records of DESIGN.md "Probe JSONL record", the kinds the log parsers emit
// (ingest/event.ts LogKind) with the attributes they set, checksum dumps and
// flight-recorder collectives. A pattern that names a kind or field absent
// here is an error at its position (docs/hypotheses.md "Fields").

export type FieldType = "string" | "number" | "boolean" | "room" | "pages";

/** Fields every event has: where it was logged. `rank` is the TP rank in a condition, the whole rank identity as a key. */
export const ENVELOPE_FIELDS: Readonly<Record<string, FieldType>> = {
  side: "string",
  host: "string",
  dp: "number",
  pp: "number",
  tp: "number",
  rank: "number",
};

const room = { room: "room" } as const;
const rid = { rid: "string" } as const;
const pages = { page: "pages" } as const;
const coll = { group: "string", op: "string", seq: "number", site: "string", digest: "string", record_id: "number", pg_desc: "string", timeout_ms: "number", timed_out: "boolean" } as const;
const failure = { failureClass: "string" } as const;

/** Kind → its own fields (beyond the envelope). */
export const KIND_FIELDS: Readonly<Record<string, Readonly<Record<string, FieldType>>>> = {
  "req.arrive": { ...room, ...rid },
  "req.finish": { ...room, ...rid, reason: "string" },
  "req.abort": { ...room, ...rid, reason: "string" },
  "req.rejected": { ...rid },
  "kv.alloc": { ...room, ...pages, buffer: "string" },
  "kv.free": { ...room, ...pages, buffer: "string" },
  "kv.meta": { ...room, ...pages, dst: "string", item_len: "number", decode_prefix_len: "number" },
  "kv.post": { ...room, ...pages, chunk: "number", last: "boolean", bytes: "number", queue: "number", buffer: "string", dst: "string", item_len: "number" },
  "kv.done": { ...room, chunk: "number", last: "boolean" },
  "kv.notify": { ...room, chunk: "number", tag: "string", status: "number", src: "number" },
  "kv.poll": { ...room, state: "number", local: "number", reduced: "number" },
  "kv.timeout": { ...room, state: "number", after_s: "number" },
  "boot.msg": { ...room, kind: "string", src: "string" },
  "boot.exit": { ...room, error: "string" },
  "hicache.load": { ...room, ...pages, slot: "number", layers: "number" },
  "hicache.layer": { layer: "number", slot: "number" },
  "hicache.wait": { layer: "number", slot: "number", accessor: "string" },
  "kernel.store": { ...room, ...pages, layer: "number", buffer: "string" },
  "kernel.read": { ...room, ...pages, layer: "number", buffer: "string", consumer: "number", path: "string", accessor: "string" },
  "sched.iter": { iter: "number", branch: "string" },
  "coll.enter": coll,
  "coll.exit": coll,
  config: {
    backend: "string", version: "string", model: "string", index_k_dtype: "string", page_size: "number", kv_page_size: "number",
    hicache: "boolean", overlap: "boolean", index_k_bytes_per_token: "number", host_index_k_page_stride: "number", transfer_queues: "number",
    bootstrap_timeout_s: "number", waiting_timeout_s: "number", max_context: "number", max_running_requests: "number", num_layers: "number", tp_size: "number",
  },
  checksum: { ...room, ...pages, layer: "number", side: "string", buffer: "string", pos: "number", algo: "string", hash: "string" },
  "batch.prefill": { "#new-seq": "number", "#new-token": "number", "#running-req": "number", "#queue-req": "number", "#bootstrap-req": "number", "#inflight-req": "number", "#prealloc-req": "number" },
  "batch.decode": { "#running-req": "number", "#queue-req": "number", "#prealloc-req": "number", "#transfer-req": "number", "#retracted-req": "number" },
  "pd.handshake_failed": { ...room, reason: "string" },
  "pd.transfer_failed": { ...room, ...rid, ...failure, reason: "string", reasonKind: "string", timeoutS: "number", timeoutState: "string", abortBy: "string" },
  "pd.bootstrap_failed": { ...room, ...rid, reason: "string" },
  "pd.timeout_warning": { phase: "string", timeoutState: "string" },
  "pd.context_corruption": { ...room, ...rid },
  "pd.metadata_not_ready": { ...room },
  "pd.node_failure": { ...failure, bootstrapAddr: "string", affected: "number" },
  "pd.room_timeout": { ...room },
  "xfer.notif_sent": { ...room, chunk: "number", peer: "string", tag: "string", tagKind: "string", isLast: "boolean", src: "number" },
  "xfer.skip_chunk": { ...room, chunk: "number", state: "number" },
  "xfer.aux_received": { ...room },
  "xfer.error": { ...failure, engine: "string", errorKind: "string", error: "string", peer: "string" },
  "xfer.timeout": { ...failure, engine: "string", scope: "string", timeoutS: "number" },
  "boot.got_info": { ...room, agentName: "string" },
  "boot.bootstrapped": { ...room, state: "number" },
  "boot.register": { peer: "string" },
  "boot.metadata_sent": { ...room, isDummy: "boolean" },
  "boot.fetch_failed": { bootstrapAddr: "string" },
  "boot.server_error": {},
  "boot.register_failed": {},
  "boot.heartbeat_failed": { bootstrapAddr: "string" },
  "abort.received": { ...room, state: "number", outcome: "string" },
  "abort.sent": { ...room, to: "string" },
  "abort.ack_sent": { ...room, to: "string" },
  "abort.ack_received": { ...room },
  "abort.request": { ...room, ...rid },
  "abort.deferred_release": { ...room },
  "hicache.prefetch_revoked": { ...rid },
  "log.exception": { ...failure, thread: "string", threadName: "string", excType: "string", excMessage: "string", fatal: "boolean" },
  "proc.crash": { ...failure, what: "string", fatal: "boolean", signal: "string", excType: "string", excMessage: "string" },
  "coll.watchdog": { backend: "string", seq: "number", op: "string", timeoutMs: "number", elapsedMs: "number" },
  "nccl.warn": { ncclLevel: "string" },
  "sched.watchdog": {},
  "http.access": { method: "string", path: "string", status: "number" },
  "log.unparsed": {},
};

/** The type of `field` on events of `kind`, undefined when the kind has no such field. */
export function fieldType(kind: string, field: string): FieldType | undefined {
  return KIND_FIELDS[kind]?.[field] ?? ENVELOPE_FIELDS[field];
}

export function isKnownKind(kind: string): boolean {
  return Object.hasOwn(KIND_FIELDS, kind);
}

/** Every field a kind's pattern may test, envelope first. */
export function fieldsOf(kind: string): string[] {
  return [...Object.keys(ENVELOPE_FIELDS), ...Object.keys(KIND_FIELDS[kind] ?? {})];
}
