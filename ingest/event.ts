// The canonical event: the one row shape every input format is parsed into
// (the Perfetto idea: importers differ, the table does not).
//
// Time is `tsUs`, integer microseconds since the Unix epoch, UTC. Microseconds
// are exact for every input (log lines carry at most milliseconds, probe floats
// print six decimals) and stay below 2^53, so plain numbers hold them without
// loss; nanosecond probe stamps are truncated to the microsecond, which is far
// below the millisecond clock skew between hosts.
//
// `room` is SGLang's bootstrap_room, a 63-bit integer kept as its decimal
// string: it is beyond Number.MAX_SAFE_INTEGER and must never pass through a
// float.

export type Role = "prefill" | "decode" | "router" | "unknown";

export const ROLES: readonly Role[] = ["prefill", "decode", "router", "unknown"];

export interface ParsedEvent {
  tsUs: number;
  /**
   * The record carries no time of its own (a traceback frame block, a line
   * with no stamp): `tsUs` was interpolated from its dated neighbours in the
   * file, or taken from the file's anchor (DESIGN.md "Inputs").
   */
  tsInferred?: boolean;
  /** 1-based line number of the record's first line in its source file. */
  line: number;
  kind: string;
  host?: string;
  role?: Role;
  dp?: number;
  pp?: number;
  tp?: number;
  room?: string;
  rid?: string;
  chunk?: number;
  layer?: number;
  /** Half-open page range [pageLo, pageHi); the hull when `attrs.pages` lists several. */
  pageLo?: number;
  pageHi?: number;
  /** A KVPoll value (0 Failed .. 4 Success) when the event carries one. */
  state?: number;
  /** Every field that has no column of its own; JSON-serialisable, rooms as strings. */
  attrs?: Record<string, unknown>;
  /** The raw record as it stood in the file (all lines of a multi-line record). */
  text: string;
  /**
   * An unparsed record's message without its wrapper and dialect prefix: what
   * the ingest summary's unparsed shapes are made of (ingest/unparsedShapes.ts).
   * Not stored.
   */
  unparsedMessage?: string;
}

/**
 * An event as the store gives it back: its place in the global order (`seq`,
 * the aligned `tsUs`), its source line, every column with null for absent,
 * and its raw text (ingest/store/queries.ts reads it).
 */
export interface StoredEvent {
  seq: number;
  tsUs: number;
  /** The time was interpolated or anchored, not read from the record (ParsedEvent.tsInferred). */
  tsInferred: boolean;
  sourceId: number;
  line: number;
  host: string | null;
  role: Role | null;
  dp: number | null;
  pp: number | null;
  tp: number | null;
  kind: string;
  room: string | null;
  rid: string | null;
  chunk: number | null;
  layer: number | null;
  pageLo: number | null;
  pageHi: number | null;
  state: number | null;
  attrs: Record<string, unknown> | null;
  text: string;
}

/** A line that could not be turned into an event, reported with its place. */
export interface ParseIssue {
  line: number;
  message: string;
}

/**
 * Event kinds. Probe records keep their `ev` name unchanged (DESIGN.md
 * "Probe JSONL record"); the names below are what the log parsers emit.
 */
export const LogKind = {
  prefillBatch: "batch.prefill",
  decodeBatch: "batch.decode",
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
  /** SGLang's scheduler watchdog: a forward pass took longer than `watchdog_timeout`. */
  schedulerWatchdog: "sched.watchdog",
  httpAccess: "http.access",
  config: "config",
  unparsed: "log.unparsed",
} as const;

export const ChecksumKind = "checksum";
