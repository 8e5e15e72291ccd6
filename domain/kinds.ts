// Every event kind the ingest produces and the typed fields of each: the one
// place that says what a stored event means (the log parsers' LogKind names
// in domain/event.ts, the probe `ev` names of DESIGN.md "Probe JSONL record",
// checksum dumps, Flight Recorder collectives, config). decode.ts reads a
// stored event through this table; kindCatalogue() hands it to tools that
// check patterns against it.
//
// A field is written "type" or "type?" (optional: absent when the record did
// not carry it, or carried something that is not of that type). A field is
// read from the stored column of the same name when there is one (room, rid,
// chunk, layer, state, pages), else from the attribute of the same name;
// `attr` names the attribute(s) otherwise, the first present winning, and
// `derived` marks a field decode.ts computes from the others.

import { ENUMS, type EnumName, type FieldType } from "./fields.js";
import { attr, derived, type FieldSpec, type KindSpec, type Tone } from "./kindSpec.js";
import { TELEMETRY_KINDS } from "./telemetryKinds.js";
import type { Component } from "./vocabulary.js";

/**
 * Event kinds. Probe records keep their `ev` name unchanged (DESIGN.md
 * "Probe JSONL record"); the names below are what the log parsers emit.
 */
export const LogKind = {
  prefillBatch: "batch.prefill",
  decodeBatch: "batch.decode",
  /** An engine's periodic statistics line (vLLM's stat logger: throughputs, running and waiting requests). */
  engineStats: "engine.stats",
  handshakeFailed: "pd.handshake_failed",
  transferFailed: "pd.transfer_failed",
  bootstrapFailed: "pd.bootstrap_failed",
  timeoutWarning: "pd.timeout_warning",
  contextCorruption: "pd.context_corruption",
  metadataNotReady: "pd.metadata_not_ready",
  nodeFailure: "pd.node_failure",
  notifSent: "xfer.notif_sent",
  skipChunk: "xfer.skip_chunk",
  auxReceived: "xfer.aux_received",
  gotInfo: "boot.got_info",
  bootstrapped: "boot.bootstrapped",
  registerKvArgs: "boot.register",
  metadataSent: "boot.metadata_sent",
  abortReceived: "abort.received",
  abortSent: "abort.sent",
  abortAckSent: "abort.ack_sent",
  abortAckReceived: "abort.ack_received",
  abortRequest: "abort.request",
  deferredRelease: "abort.deferred_release",
  transportError: "xfer.error",
  /** A transfer engine gave up on a batch or a transfer (Mooncake `Failed to complete transfers after N seconds`). */
  transferTimeout: "xfer.timeout",
  /** Decode could not reach the prefill bootstrap server (`Could not fetch prefill parallel info …`). */
  bootstrapFetchFailed: "boot.fetch_failed",
  /** The bootstrap HTTP server reported an error (bad registration, unknown engine rank, …). */
  bootstrapServerError: "boot.server_error",
  /** A prefill rank could not register with the bootstrap server (`Prefill register attempt {i}/{n} failed: …`). */
  bootstrapRegisterFailed: "boot.register_failed",
  /** Decode's heartbeat to a prefill bootstrap server failed once (`Attempting to reconnect to {addr}...`). */
  heartbeatFailed: "boot.heartbeat_failed",
  /** A router could not reach a worker (sgl-router's gRPC connect or health check): a probe, not the router's failure. */
  routerProbeFailed: "router.probe_failed",
  /** One room gave up waiting for its KV (NIXL receiver `Request {room} waiting_timeout`); the room is Failed. */
  roomTimeout: "pd.room_timeout",
  /** A request refused at admission for capacity (`Request {rid} exceeds the maximum number of tokens: {n} > {cap}`). */
  capacityRejected: "req.rejected",
  /** HiCache dropped a storage prefetch (`Revoking prefetch for request {rid} due to …`). */
  prefetchRevoked: "hicache.prefetch_revoked",
  /** A Python exception record: a traceback, a thread death, `Scheduler hit an exception`. */
  exception: "log.exception",
  /** The process died: `Fatal Python error` / faulthandler dumps, C++ `terminate called …`, torch `frame #N` backtraces. */
  crash: "proc.crash",
  watchdog: "coll.watchdog",
  /** An NCCL WARN/ERROR line (NCCL_DEBUG): NCCL's own report of a failed call, a lost peer, a transport error. */
  ncclWarning: "nccl.warn",
  /** A dump of a live process's threads someone took (py-spy's `dump`): where each thread was at that instant. */
  stackDump: "proc.stack_dump",
  /** SGLang's scheduler watchdog: a forward pass took longer than `watchdog_timeout`. */
  schedulerWatchdog: "sched.watchdog",
  httpAccess: "http.access",
  httpFailed: "http.failed",
  /** What Kubernetes said of a pod that is no failure: a container's state, an event of its Events table (`kubectl describe pod`, `kubectl get events`). */
  podEvent: "pod.event",
  config: "config",
  /**
   * An error-level line no template reads: its dialect said ERROR / FATAL /
   * `E…` / `F…`, or its words are an exception's, a crash's or a failed
   * assertion's (ingest/formats/log/unread.ts). A failure record all the same.
   */
  error: "log.error",
  /** A line whose dialect (time, rank, level) was read and whose message no template reads. */
  message: "log.message",
  /** A line in no dialect the reader knows, whose message no template reads. */
  unparsed: "log.unparsed",
} as const;

export { TelemetryKind } from "./telemetryKinds.js";

export const ChecksumKind = "checksum";

export const PAGE_DUMP_KIND = "page.dump";

export type { FieldSpec, KindSpec, Tone } from "./kindSpec.js";

/** Fields of the three PD failure lines, `{Side} {what} failed for request …` (docs/protocol.md §3.4, reasons §3.5). */
const FAILURE_FIELDS = {
  room: "room?",
  rid: "string?",
  state: "kvpoll?",
  side: derived("side", "the side that logged it: decode for handshake, prefill for bootstrap, else the rank's role"),
  rank: "number?",
  /** The line's own `self.pp_rank=…` (the envelope's pp is the prefix's PP tag). */
  ppRank: attr("number?", "pp"),
  detail: "string?",
  reason: "string?",
  reasonKind: "reasonKind?",
  errorRoom: "room?",
  timedOut: derived("boolean", "the reason is a PD timeout: `timed out after {s}s in KVPoll.{state}`"),
  timeoutState: "string?",
  timeoutPoll: derived("kvpoll?", "the KVPoll state the timeout fired in (docs/protocol.md §5.2)"),
  timeoutS: "number?",
  abortBy: "string?",
  bootstrapAddr: "string?",
  peer: "string?",
  failureClass: "string?",
} as const;

const REQUEST = { room: "room?", rid: "string?" } as const;
const COLLECTIVE = {
  group: "string?",
  op: "string?",
  collSeq: attr("number?", "seq"),
  site: "string?",
  digest: "string?",
  fr_state: "string?",
  fr_version: "string?",
  pg_desc: "string?",
  record_id: "number?",
  started_us: "number?",
  timed_out: "boolean?",
  timeout_ms: "number?",
} as const;
const BATCH = { gauges: derived("record", "every `name: value` field of the batch line (`#running-req`, `token usage`, …)") } as const;
const EXCEPTION = { excType: "string?", excMessage: "string?", failureClass: "string?", fatal: "boolean?" } as const;
const ABORT_NOTICE = { room: "room?", to: "string?", failed: "boolean?", drained: "boolean?", error: "string?" } as const;

/**
 * A notification tag's fields as the ingest decodes them (domain/notifTag.ts
 * NotifTag; ingest/formats/notifFields.ts): room and chunk in their columns,
 * the rest in attrs. Which fields a tag has depends on `tagKind`.
 */
const NOTIF_TAG_FIELDS = {
  room: "room?",
  chunk: "number?",
  tagKind: "string?",
  isLast: "boolean?",
  src: "number?",
  part: "number?",
  parts: "number?",
  chunkIdx: "number?",
  pageStart: "number?",
  numPages: "number?",
  agentName: "string?",
  component: "number?",
  expectedChunks: "number?",
} as const;

/** The catalogue: kind → what it is → its fields. */
export const KINDS = {
  "req.arrive": { lane: "scheduler", tone: 0, colour: "#a9c4f5", doc: "a request arrived (probe)", fields: REQUEST },
  "req.finish": { lane: "scheduler", tone: 0, colour: "#7fa6e6", doc: "a request finished (probe)", fields: REQUEST },
  "req.abort": { lane: "scheduler", tone: 1, doc: "a request was aborted (probe)", fields: { ...REQUEST, reason: "string?" } },
  "kv.alloc": { lane: "transfer", tone: 0, colour: "#a5d8a0", doc: "decode gave pages to a room (probe)", fields: { room: "room?", pages: "pages?", buffer: "string?" } },
  "kv.free": { lane: "transfer", tone: 0, colour: "#72b86e", doc: "decode took pages from a room (probe)", fields: { room: "room?", pages: "pages?", buffer: "string?" } },
  "kv.meta": { lane: "transfer", tone: 0, colour: "#62b8a8",
    doc: "decode sent a room's metadata to prefill (probe)",
    fields: {
      room: "room?",
      pages: "pages?",
      dst: "string?",
      dst_port: "number?",
      aux_index: "number?",
      required_prefill_response_num: "number?",
      expects_state: "boolean?",
      item_len: "number?",
      decode_prefix_len: "number?",
      state_pages: "json?",
    },
  },
  "kv.post": { lane: "transfer", tone: 0, colour: "#4fc9a4",
    doc: "prefill posted an RDMA write for a chunk (probe)",
    fields: { room: "room?", chunk: "number?", last: "boolean?", pages: "pages?", dst_pages: "pages?", bytes: "number?", queue: "number?", buffer: "string?", dst: "string?", item_len: "number?" },
  },
  "kv.done": { lane: "transfer", tone: 0, colour: "#2bb3a0", doc: "the transfer handle of a chunk reported done (probe)", fields: { room: "room?", chunk: "number?", last: "boolean?" } },
  "kv.notify": { lane: "transfer", tone: 0, colour: "#8de3c4",
    doc: "decode received a notification (probe): a NIXL tag, decoded per docs/protocol.md §6, or a Mooncake status",
    fields: { tag: "string?", status: "number?", prefill_rank: "number?", ...NOTIF_TAG_FIELDS },
  },
  "kv.poll": { lane: "transfer", tone: 0, colour: "#35a587", doc: "a poll result (probe)", fields: { room: "room?", state: "kvpoll?", local: "number?", reduced: "number?" } },
  "kv.timeout": { lane: "transfer", tone: 1,
    doc: "a bootstrap or waiting timeout fired (probe)",
    fields: { room: "room?", state: "kvpoll?", stateName: attr("string?", "state"), after_s: "number?" },
  },
  "boot.msg": { lane: "bootstrap", tone: 0, colour: "#b48ef0",
    doc: "the prefill bootstrap thread took a frame (probe)",
    fields: { room: "room?", frame: attr("string?", "kind"), src: "string?", requiredDstInfoNum: attr("number?", "required_dst_info_num", "requiredDstInfoNum") },
  },
  "boot.exit": { lane: "bootstrap", tone: 2, doc: "the prefill bootstrap thread ended (probe)", fields: { room: "room?", error: "string?" } },
  "hicache.load": { lane: "hicache", tone: 0, colour: "#3cb6d8",
    doc: "a HiCache host→device load started (probe)",
    fields: { room: "room?", slot: "number?", layers: attr("number?", "layers", "num_layers"), firstLayer: attr("number?", "first_layer"), pages: "pages?" },
  },
  "hicache.layer": { lane: "hicache", tone: 0, colour: "#7fd3ea", doc: "a layer of a HiCache load completed (probe)", fields: { slot: "number?", layer: "number?" } },
  "hicache.wait": { lane: "hicache", tone: 0, colour: "#2a93b5", doc: "a reader waited on a HiCache layer (probe)", fields: { slot: "number?", layer: "number?", accessor: "string?" } },
  "kernel.store": { lane: "kernels", tone: 0, colour: "#93c56a", doc: "a kernel wrote pages (probe)", fields: { room: "room?", buffer: "string?", layer: "number?", pages: "pages?", locs: "json?" } },
  "kernel.read": { lane: "kernels", tone: 0, colour: "#c0df8e",
    doc: "a kernel read pages (probe)",
    fields: { room: "room?", buffer: "string?", layer: "number?", pages: "pages?", consumer: "number?", accessor: "string?", path: "string?" },
  },
  "sched.iter": { lane: "scheduler", tone: 0, colour: "#4f7fd9", doc: "a scheduler iteration (probe)", fields: { iter: "number?", branch: "string?" } },
  "coll.enter": { lane: "collectives", tone: 0, colour: "#e0bd5e", doc: "a rank entered a collective (probe, Flight Recorder)", fields: COLLECTIVE },
  "coll.exit": { lane: "collectives", tone: 0, colour: "#b89a48", doc: "a rank left a collective (probe, Flight Recorder)", fields: COLLECTIVE },
  [LogKind.config]: { lane: "logs", tone: 0, colour: "#a0a8c4",
    doc: "the run's settings as a rank states them (probe `config`, `NIXL KVManager initialized`)",
    fields: {
      settings: derived("record", "every setting the record carries"),
      backend: "string?",
      version: "string?",
      nixlBackend: "string?",
      model: "string?",
      index_k_dtype: "string?",
      page_size: "number?",
      kv_page_size: "number?",
      hicache: "boolean?",
      overlap: "boolean?",
      index_k_bytes_per_token: "number?",
      host_index_k_page_stride: "number?",
      transfer_queues: "number?",
      bootstrap_timeout_s: "number?",
      waiting_timeout_s: "number?",
      max_context: "number?",
      num_layers: "number?",
      max_total_tokens: "number?",
      indexer_logit_rows: "number?",
    },
  },
  [ChecksumKind]: { lane: "checksums", tone: 0, colour: "#9aa6c8",
    doc: "a page checksum from a dump (DESIGN.md \"Inputs\" 3)",
    fields: {
      room: "room?",
      side: "string?",
      buffer: "string?",
      layer: "number?",
      page: derived("number?", "the page in the dumping side's pool"),
      pos: "number?",
      algo: "string?",
      hash: "string?",
    },
  },
  [PAGE_DUMP_KIND]: { lane: "logs", tone: 0,
    doc: "a dumped page's index record (docs/evidence.md §4a); its bytes are in the incident's pages table",
    fields: {
      room: "room?",
      side: "string?",
      buffer: "string?",
      layer: "number?",
      pages: "pages?",
      pos: "number?",
      dtype: "string?",
      layout: "string?",
      file: "string?",
      offset: "number?",
      length: "number?",
      tensor: "string?",
      algo: "string?",
      checksum: "string?",
    },
  },
  [LogKind.prefillBatch]: { lane: "scheduler", tone: 0, colour: "#6f9cf0", doc: "a prefill batch line (`Prefill batch. #new-seq: …`)", fields: BATCH },
  [LogKind.decodeBatch]: { lane: "scheduler", tone: 0, colour: "#9bb8ff", doc: "a decode batch line (`Decode batch. #running-req: …`)", fields: BATCH },
  [LogKind.engineStats]: { lane: "scheduler", tone: 0, colour: "#b9c7ea",
    doc: "an engine's periodic statistics (vLLM's `Engine 000: Avg prompt throughput: …, Running: N reqs, …`)",
    fields: { engine: "number?", promptTps: "number?", generationTps: "number?", running: "number?", waiting: "number?", swapped: "number?", kvUsage: "number?" },
  },
  [LogKind.handshakeFailed]: { lane: "bootstrap", tone: 2, doc: "`Decode handshake failed for request …`", fields: FAILURE_FIELDS },
  [LogKind.transferFailed]: { lane: "transfer", tone: 2, doc: "`{Decode|Prefill} transfer failed for request …`", fields: FAILURE_FIELDS },
  [LogKind.bootstrapFailed]: { lane: "bootstrap", tone: 2, doc: "`Prefill bootstrap failed for request …`", fields: FAILURE_FIELDS },
  [LogKind.timeoutWarning]: { lane: "transfer", tone: 1, doc: "the warning_once hint that some requests timed out", fields: { phase: "string?", timeoutState: "string?" } },
  [LogKind.contextCorruption]: { lane: "transfer", tone: 2,
    doc: "`Context corruption detected`: a room received another room's metadata",
    fields: { room: "room?", rid: "string?", actualRoom: "room?", metadataBufferIndex: attr("number?", "metadataBufferIndex", "metadata_buffer_index") },
  },
  [LogKind.metadataNotReady]: { lane: "transfer", tone: 0,
    doc: "`Metadata unexpectedly not ready after readiness gate`",
    fields: { room: "room?", rid: "string?", metadataBufferIndex: attr("number?", "metadataBufferIndex", "metadata_buffer_index") },
  },
  [LogKind.nodeFailure]: { lane: "bootstrap", tone: 2,
    doc: "decode lost its prefill peer (`Lost connection with prefill instance`, `Let room … be failed`)",
    fields: { room: "room?", state: "kvpoll?", bootstrapAddr: "string?", affected: "number?", cause: "string?", failureClass: "string?" },
  },
  [LogKind.notifSent]: { lane: "transfer", tone: 0, colour: "#5fd0b8",
    doc: "`sending kvcache to {peer} with notif {tag}` (tag decoded per docs/protocol.md §6)",
    fields: { peer: "string?", tag: attr("string?", "tag", "notif"), ...NOTIF_TAG_FIELDS },
  },
  [LogKind.skipChunk]: { lane: "transfer", tone: 0, doc: "`Skipping chunk for room …`", fields: { room: "room?", state: "kvpoll?", because: "string?" } },
  [LogKind.auxReceived]: { lane: "transfer", tone: 0, colour: "#9ee8d8", doc: "`Received AUX_DATA for bootstrap_room …`", fields: { room: "room?", length: "number?" } },
  [LogKind.gotInfo]: { lane: "bootstrap", tone: 0, colour: "#cfb1ff",
    doc: "`got info room=… agent_name=… required_dst_info_num=…`",
    fields: { room: "room?", agentName: "string?", requiredDstInfoNum: attr("number?", "required_dst_info_num", "requiredDstInfoNum") },
  },
  [LogKind.bootstrapped]: { lane: "bootstrap", tone: 0, colour: "#9e78e0", doc: "`room=… is bootstrapped`", fields: { room: "room?", state: "kvpoll?" } },
  [LogKind.registerKvArgs]: { lane: "bootstrap", tone: 0, colour: "#d9c2ff", doc: "`Register KVArgs from … successfully`", fields: { peer: "string?" } },
  [LogKind.metadataSent]: { lane: "bootstrap", tone: 0, colour: "#a98ae8", doc: "`Sending to prefill server with bootstrap room …`", fields: { room: "room?", isDummy: "boolean?" } },
  [LogKind.abortReceived]: { lane: "bootstrap", tone: 1, doc: "prefill received an abort notification", fields: { room: "room?", state: "kvpoll?", outcome: "string?", error: "string?" } },
  [LogKind.abortSent]: { lane: "bootstrap", tone: 1, doc: "decode sent (or failed to send) an abort notification", fields: ABORT_NOTICE },
  [LogKind.abortAckSent]: { lane: "bootstrap", tone: 1, doc: "prefill sent (or failed to send) ABORT_ACK", fields: ABORT_NOTICE },
  [LogKind.abortAckReceived]: { lane: "bootstrap", tone: 1, doc: "decode received ABORT_ACK", fields: { room: "room?" } },
  [LogKind.abortRequest]: { lane: "scheduler", tone: 1, doc: "`Abort {queue} request. req.rid=…`", fields: { rid: "string?", queue: "string?" } },
  [LogKind.deferredRelease]: { lane: "bootstrap", tone: 1,
    doc: "decode's deferred KV release timed out or failed (docs/protocol.md §7.4)",
    fields: { room: "room?", outcome: "string?", timeoutS: "number?", failureClass: "string?" },
  },
  [LogKind.transportError]: { lane: "transfer", tone: 2,
    doc: "a transport error (NIXL, Mooncake session/engine, UCX, AUX mismatch, worker)",
    fields: {
      room: "room?",
      state: "kvpoll?",
      errorKind: "string?",
      error: "string?",
      engine: "string?",
      session: "string?",
      peer: "string?",
      peerAddr: "string?",
      buffer: "string?",
      bytes: "number?",
      destAddr: "string?",
      sourceAddr: "string?",
      localNic: "string?",
      opcode: "string?",
      retryCnt: "number?",
      /** 3FS's status code and its name (`6004`, `MgmtdClient::RoutingInfoNotReady`). */
      statusCode: "number?",
      statusName: "string?",
      failureClass: "string?",
    },
  },
  [LogKind.transferTimeout]: { lane: "transfer", tone: 1,
    doc: "a transfer engine gave up on a batch or a transfer",
    fields: { engine: "string?", scope: "string?", batchId: "string?", timeoutS: "number?", failureClass: "string?" },
  },
  [LogKind.bootstrapFetchFailed]: { lane: "bootstrap", tone: 2,
    doc: "decode could not reach the prefill bootstrap server",
    fields: { what: "string?", bootstrapAddr: "string?", engineRank: "number?", status: "number?", error: "string?", failureClass: "string?" },
  },
  [LogKind.bootstrapServerError]: { lane: "bootstrap", tone: 2, doc: "the bootstrap HTTP server reported an error", fields: { error: "string?", failureClass: "string?" } },
  [LogKind.bootstrapRegisterFailed]: { lane: "bootstrap", tone: 2,
    doc: "a prefill rank could not register with the bootstrap server",
    fields: { what: "string?", attempt: "number?", attempts: "number?", status: "number?", body: "string?", error: "string?", final: "boolean?", failureClass: "string?" },
  },
  [LogKind.heartbeatFailed]: { lane: "bootstrap", tone: 2, doc: "decode's heartbeat to a prefill bootstrap server failed once", fields: { bootstrapAddr: "string?" } },
  [LogKind.routerProbeFailed]: { lane: "logs", tone: 1, doc: "a router could not reach a worker (a failed gRPC connect or health check): the worker not up yet, gone, or its link broken; transport-failure keeps it low, never a suspect", fields: { worker: "string?", error: "string?" } },
  [LogKind.roomTimeout]: { lane: "transfer", tone: 1,
    doc: "`Request {room} waiting_timeout` (NIXL receiver): the room is Failed",
    fields: { room: "room?", state: "kvpoll?", timeoutState: "string?", failureClass: "string?" },
  },
  [LogKind.capacityRejected]: { lane: "scheduler", tone: 0, doc: "a request refused at admission for capacity", fields: { rid: "string?", reason: "string?", tokens: "number?", capacity: "number?" } },
  [LogKind.prefetchRevoked]: { lane: "hicache", tone: 0, doc: "HiCache dropped a storage prefetch", fields: { rid: "string?", reason: "string?", hits: "number?" } },
  [LogKind.exception]: { lane: "logs", tone: 2, doc: "a Python exception record", fields: { thread: "string?", threadName: "string?", error: "string?", what: "string?", reasonKind: "string?", level: "string?", source: "string?", ...EXCEPTION } },
  [LogKind.crash]: { lane: "logs", tone: 2, doc: "the process died", fields: { signal: "string?", what: "string?", frame: "string?", threads: "number?", ...EXCEPTION } },
  [LogKind.watchdog]: { lane: "collectives", tone: 2,
    doc: "a collective watchdog (NCCL, gloo) or a DeepEP kernel reported a timeout or failure",
    fields: {
      backend: "string?",
      report: "string?",
      op: "string?",
      /** DeepEP: the kernel role that waited (`dispatch NVL receiver`), its kernel family, channel and the ranks it names. */
      stage: "string?",
      kernel: "string?",
      channel: "number?",
      rdmaRank: "number?",
      nvlRank: "number?",
      srcRank: "number?",
      dstRank: "number?",
      timeoutMs: "number?",
      elapsedMs: "number?",
      rank: "number?",
      globalRank: "number?",
      collSeq: attr("number?", "seq"),
      numelIn: "number?",
      numelOut: "number?",
      pgDesc: "string?",
      pgId: "string?",
      pgUid: "string?",
      lastCompleted: "number?",
      lastEnqueued: "number?",
    },
  },
  [LogKind.ncclWarning]: { lane: "collectives", tone: 0, doc: "an NCCL WARN/ERROR line", fields: { ncclLevel: "string?", ncclHost: "string?", cudaDev: "number?" } },
  [LogKind.schedulerWatchdog]: { lane: "scheduler", tone: 2,
    doc: "a forward pass took longer than `watchdog_timeout`",
    fields: { component: "string?", timeoutS: "number?", soft: "boolean?", fatal: "boolean?", failureClass: "string?", report: "string?", pid: "number?", error: "string?", thread: "string?", stuckIn: "string?", threads: "number?", waitingIn: "string?", waitOp: "string?" },
  },
  [LogKind.stackDump]: { lane: "scheduler", tone: 1,
    doc: "a dump of a live process's threads (py-spy's `dump`): its main thread's state and innermost frame, and whether that frame waits in a collective or a KV transfer",
    fields: { pid: "number?", command: "string?", threads: "number?", thread: "string?", stuckIn: "string?", waitingIn: "string?", waitOp: "string?", failureClass: "string?" },
  },
  [LogKind.httpAccess]: { lane: "scheduler", tone: 0, colour: "#7d8fb8",
    doc: "an HTTP exchange: a uvicorn access line, or a client's print of the server's answer (curl's status line, an error body)",
    fields: { client: "string?", method: "string?", path: "string?", httpVersion: "string?", status: "number?", reason: "string?", level: "string?", message: "string?", errorType: "string?" },
  },
  [LogKind.httpFailed]: { lane: "scheduler", tone: 2,
    doc: "an HTTP exchange whose status says the request failed on the server (a 5xx but 503): an access line, a client's status line or error body",
    fields: { client: "string?", method: "string?", path: "string?", httpVersion: "string?", status: "number?", reason: "string?", level: "string?", message: "string?", errorType: "string?", failureClass: "string?", error: "string?" },
  },
  [LogKind.error]: { lane: "logs", tone: 2,
    doc: "an error-level line no template reads",
    fields: { level: "string?", component: "string?", source: "string?", error: "string?", ...EXCEPTION },
  },
  [LogKind.podEvent]: { lane: "logs", tone: 0, doc: "a pod's container state or Kubernetes event that is no failure (kubectl describe pod, kubectl get events)", fields: { level: "string?", reason: "string?", eventType: "string?", message: "string?", container: "string?", state: "string?", count: "number?" } },
  [LogKind.message]: { lane: "logs", tone: 0, colour: "#8a93ad", doc: "a line in a known dialect whose message no template reads", fields: { level: "string?", component: "string?", source: "string?", disaggregationMode: "string?" } },
  [LogKind.unparsed]: { lane: "logs", tone: 0, colour: "#767f9c", doc: "a line in no known dialect that no template reads", fields: { ncclLevel: "string?", ncclHost: "string?", cudaDev: "number?" } },
  ...TELEMETRY_KINDS,
} as const satisfies Record<string, KindSpec>;

export type KnownKind = keyof typeof KINDS;

export function isKnownKind(kind: string): kind is KnownKind {
  return Object.prototype.hasOwnProperty.call(KINDS, kind);
}

/**
 * The lane of a kind this table does not know: probe records may carry any
 * `ev` (DESIGN.md "Probe JSONL record": unknown kinds are kept), named
 * `<area>.<what>`, so the area picks the lane.
 */
const AREA_LANE: Readonly<Record<string, Component>> = {
  req: "scheduler",
  sched: "scheduler",
  batch: "scheduler",
  http: "scheduler",
  pd: "scheduler",
  kv: "transfer",
  xfer: "transfer",
  boot: "bootstrap",
  abort: "bootstrap",
  hicache: "hicache",
  kernel: "kernels",
  coll: "collectives",
  nccl: "collectives",
  checksum: "checksums",
  log: "logs",
};

export function laneOfKind(kind: string): Component {
  if (isKnownKind(kind)) return KINDS[kind].lane;
  const dot = kind.indexOf(".");
  return AREA_LANE[dot < 0 ? kind : kind.slice(0, dot)] ?? "logs";
}

/** A kind's tone, or a Failed KVPoll state's (a failure whatever the kind). An unknown kind is as loud as its name says. */
export function toneOfKind(kind: string, state: number | null): Tone {
  if (state === 0) return 2;
  if (isKnownKind(kind)) return KINDS[kind].tone;
  if (/(fail|error|exception|corruption|watchdog|crash)/.test(kind)) return 2;
  if (/(abort|timeout|mismatch|retract)/.test(kind)) return 1;
  return 0;
}

export function fixedColourOfKind(kind: string): string | undefined {
  return isKnownKind(kind) ? (KINDS[kind] as KindSpec).colour : undefined;
}

/** One field as tools see it: its type, whether it may be absent, and its words when the type is a closed set. */
export interface FieldDescription {
  type: FieldType;
  optional: boolean;
  values?: readonly string[];
  /** The attribute(s) it is read from when not its own name. */
  from?: readonly string[];
  /** How it is computed, when it is. */
  derived?: string;
}

export interface CatalogueDescription {
  /** Fields every kind has (domain/domainEvent.ts Envelope). */
  envelope: Record<string, FieldDescription>;
  kinds: Record<string, { doc: string; fields: Record<string, FieldDescription> }>;
}

export function describeField(spec: FieldSpec): FieldDescription {
  const typed = typeof spec === "string" ? spec : spec.type;
  const optional = typed.endsWith("?");
  const type = (optional ? typed.slice(0, -1) : typed) as FieldType;
  const out: FieldDescription = { type, optional };
  if (type in ENUMS) out.values = ENUMS[type as EnumName];
  if (typeof spec !== "string") {
    if ("attr" in spec) out.from = spec.attr;
    else out.derived = spec.derived;
  }
  return out;
}
