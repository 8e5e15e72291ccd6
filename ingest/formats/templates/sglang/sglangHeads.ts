// The level of SGLang's own lines, read from its source (issue "Every failure
// in an operator's logs becomes a finding"). SGLang's prefix prints no level
// (`[%(asctime)s%(prefix)s] %(message)s`, utils/common.py configure_logger),
// and it prints warnings and errors under the same prefix, so a line no
// template reads is judged by the constant head of the logger call that
// printed it: the literal text from the message's start to its first
// placeholder. Heads shorter than 12 characters, or whose message opens with a
// placeholder, tell no call apart and are left out. A template that reads a
// line wins (ingest/formats/log/unread.ts settleUnread only sees the rest).
// docs/log-templates.md "SGLang's own error and warning heads" is written from
// these rows.

/** A logger call's level: `logger.error`, `logger.exception`, `logger.critical`, `logger.fatal` are errors. */
export type HeadLevel = "error" | "warning";

export interface SglangHead {
  /** The message's literal opening, up to its first placeholder. */
  readonly head: string;
  readonly level: HeadLevel;
  /** The file under `python/sglang/srt/`. */
  readonly file: string;
  /** The function (or functions) that log it. */
  readonly where: string;
  /** Which copies were read: a commit, or the index copies the row's note names. */
  readonly read: string;
  /**
   * An error that reports a KV transfer's, a bootstrap's or a peer's failure: transport-failure judges it
   * (the transfer engine's when `engine` names it), else process-failure does.
   */
  readonly transfer?: true;
  /** The transfer engine whose SGLang side logs it: its failure is that engine's `xfer.error`. */
  readonly engine?: "mooncake" | "nixl";
}

const DECODE = "disaggregation/decode.py";
const PREFILL = "disaggregation/prefill.py";
const COMMON = "disaggregation/common/conn.py";
const MOONCAKE = "disaggregation/mooncake/conn.py";
const NIXL = "disaggregation/nixl/conn.py";
const STORE = "mem_cache/storage/mooncake_store/mooncake_store.py";
/** Copies of the index whose commit the index gives. */
const COMMON_NEW = "0094505d";
const COMMON_OLD = "ad7733e4";
const MOONCAKE_NEW = "0005973a";
const PREFILL_NEW = "000c2b94";
/** Index copies read whole without a commit of their own (nixl/conn.py of the staging era, decode.py of 76 KB, scheduler.py of 74 KB). */
const INDEX_COPY = "index copy";

export const SGLANG_HEADS: readonly SglangHead[] = [
  // disaggregation/decode.py
  { head: "Decode handshake failed for request ", level: "error", file: DECODE, where: "DecodePreallocQueue._update_handshake_waiters", read: `278e503a, ${INDEX_COPY}`, transfer: true },
  { head: "Decode transfer failed for request ", level: "error", file: DECODE, where: "DecodeTransferQueue.pop_transferred", read: `278e503a, ${INDEX_COPY}`, transfer: true },
  { head: "Could not fetch prefill parallel info from ", level: "error", file: DECODE, where: "DecodePreallocQueue._ensure_prefill_info", read: INDEX_COPY, transfer: true },
  { head: "Context corruption detected: Request ", level: "error", file: DECODE, where: "DecodeTransferQueue._commit_transfer_to_req", read: INDEX_COPY },
  // disaggregation/prefill.py
  { head: "Prefill bootstrap failed for request ", level: "error", file: PREFILL, where: "PrefillBootstrapQueue.pop_bootstrapped", read: PREFILL_NEW, transfer: true },
  { head: "Prefill transfer failed for request ", level: "warning", file: PREFILL, where: "process_disagg_prefill_inflight_queue", read: `${PREFILL_NEW}, index copies` },
  { head: "Unexpected polling state ", level: "warning", file: PREFILL, where: "process_disagg_prefill_inflight_queue (warning_once)", read: PREFILL_NEW },
  // disaggregation/common/conn.py
  { head: "PD retract rebootstrap could not resolve the prefill /generate URL from bootstrap info (rid=", level: "error", file: COMMON, where: "CommonKVManager.submit_prefill_recompute", read: COMMON_NEW, transfer: true },
  { head: "PD rebootstrap prefill failed for rid=", level: "error", file: COMMON, where: "CommonKVManager._run_prefill_recompute", read: COMMON_NEW, transfer: true },
  { head: "PD rebootstrap prefill request failed for rid=", level: "error", file: COMMON, where: "CommonKVManager._run_prefill_recompute (logger.exception)", read: COMMON_NEW, transfer: true },
  { head: "Failed to get prefill server info: ", level: "error", file: COMMON, where: "CommonKVManager.try_ensure_parallel_info, CommonKVReceiver._get_bootstrap_info_from_server", read: `${COMMON_NEW}, ${COMMON_OLD}`, transfer: true },
  { head: "Error fetching prefill server info from bootstrap: ", level: "error", file: COMMON, where: "CommonKVManager.try_ensure_parallel_info", read: COMMON_NEW, transfer: true },
  { head: "Error fetching prefill info from bootstrap: ", level: "error", file: COMMON, where: "CommonKVReceiver._get_bootstrap_info_from_server", read: `${COMMON_NEW}, ${COMMON_OLD}`, transfer: true },
  { head: "Failed to query dp_ranks: ", level: "error", file: COMMON, where: "CommonKVReceiver.query_prefill_dp_ranks", read: COMMON_NEW, transfer: true },
  { head: "Error querying dp_ranks from bootstrap: ", level: "error", file: COMMON, where: "CommonKVReceiver.query_prefill_dp_ranks", read: COMMON_NEW, transfer: true },
  { head: "Failed to register prefill dp_rank: ", level: "error", file: COMMON, where: "CommonKVSender._register_prefill_dp_rank", read: COMMON_NEW, transfer: true },
  { head: "Prefill register attempt ", level: "warning", file: COMMON, where: "CommonKVManager.register_to_bootstrap", read: COMMON_NEW },
  { head: "Prefill instance failed to register to bootstrap server after ", level: "error", file: COMMON, where: "CommonKVManager.register_to_bootstrap", read: COMMON_NEW, transfer: true },
  { head: "Prefill Failed to connect to bootstrap server: ", level: "error", file: COMMON, where: "CommonKVManager._register_to_bootstrap", read: COMMON_OLD, transfer: true },
  { head: "Prefill Failed to register to bootstrap server: ", level: "error", file: COMMON, where: "CommonKVManager._register_to_bootstrap", read: COMMON_OLD, transfer: true },
  { head: "Could not fetch prefill parallel info for bootstrap_addr: ", level: "error", file: COMMON, where: "CommonKVReceiver.__init__", read: COMMON_OLD, transfer: true },
  { head: "Could not fetch bootstrap info for engine rank: ", level: "error", file: COMMON, where: "CommonKVReceiver.__init__", read: COMMON_OLD, transfer: true },
  { head: "Failed to get prefill parallel info: ", level: "error", file: COMMON, where: "CommonKVReceiver._get_prefill_dp_size_from_server", read: COMMON_OLD, transfer: true },
  { head: "Error fetching prefill parallel info from bootstrap: ", level: "error", file: COMMON, where: "CommonKVReceiver._get_prefill_dp_size_from_server", read: COMMON_OLD, transfer: true },
  { head: "Lost connection with prefill instance (bootstrap_addr: ", level: "error", file: COMMON, where: "CommonKVManager._handle_node_failure", read: COMMON_NEW, transfer: true },
  { head: "Server error: ", level: "error", file: COMMON, where: "CommonKVBootstrapServer._run_server", read: `${COMMON_NEW}, ${COMMON_OLD}` },
  { head: "Performance is NOT guaranteed when using different TP sizes for non-MLA models.", level: "warning", file: COMMON, where: "CommonKVManager._resolve_rank_mapping (warning_once)", read: COMMON_NEW },
  { head: "Some requests timed out when bootstrapping, ", level: "warning", file: COMMON, where: "CommonKVSender._check_bootstrap_timeout (warning_once)", read: COMMON_NEW },
  { head: "Some requests fail to receive KV Cache transfer done signal after bootstrapping. ", level: "warning", file: COMMON, where: "CommonKVReceiver._check_waiting_timeout (warning_once)", read: COMMON_NEW },
  { head: "get_kv_replica_factor called before resolve_kv_replica_factor; ", level: "warning", file: COMMON, where: "CommonKVManager.get_kv_replica_factor (warning_once)", read: COMMON_NEW },
  { head: "resolve_kv_replica_factor: no decode destinations available; ", level: "warning", file: COMMON, where: "CommonKVManager.resolve_kv_replica_factor (warning_once)", read: COMMON_NEW },
  // disaggregation/mooncake/conn.py
  { head: "Prefill transfer kvcache error, layers_current_pp_stage is out of range: ", level: "error", file: MOONCAKE, where: "MooncakeKVManager._send_kvcache_generic", read: MOONCAKE_NEW, transfer: true, engine: "mooncake" },
  { head: "AUX_DATA length mismatch for bootstrap_room ", level: "error", file: MOONCAKE, where: "MooncakeKVManager._handle_aux_data", read: MOONCAKE_NEW, transfer: true, engine: "mooncake" },
  { head: "Failed to signal mooncake transfer worker on teardown", level: "error", file: MOONCAKE, where: "MooncakeKVManager.teardown (logger.exception)", read: MOONCAKE_NEW },
  { head: "Failed to shutdown executor on teardown", level: "error", file: MOONCAKE, where: "MooncakeKVManager.teardown (logger.exception)", read: MOONCAKE_NEW },
  { head: "Failed to close mooncake server_socket during teardown", level: "error", file: MOONCAKE, where: "MooncakeKVManager.teardown (logger.exception)", read: MOONCAKE_NEW },
  { head: "Failed to destroy mooncake zmq context during teardown", level: "error", file: MOONCAKE, where: "MooncakeKVManager.teardown (logger.exception)", read: MOONCAKE_NEW },
  { head: "Failed to deregister buffers during teardown", level: "error", file: MOONCAKE, where: "MooncakeKVManager.teardown (logger.exception)", read: MOONCAKE_NEW },
  { head: "Prefill staging too small for ", level: "warning", file: MOONCAKE, where: "MooncakeKVManager.send_kvcache_staged; NixlKVManager.send_kvcache_staged", read: `${MOONCAKE_NEW}, nixl ${INDEX_COPY}` },
  { head: "Decode staging too small: need ", level: "warning", file: MOONCAKE, where: "MooncakeKVManager.send_kvcache_staged; NixlKVManager.send_kvcache_staged", read: `${MOONCAKE_NEW}, nixl ${INDEX_COPY}` },
  { head: "[Staging] a chunk exceeds the staging ring; failing affected requests.", level: "warning", file: MOONCAKE, where: "MooncakeKVManager._do_staging_transfer (warning_once)", read: MOONCAKE_NEW },
  { head: "[Staging] a chunk does not fit the staging ring; failing affected requests.", level: "warning", file: MOONCAKE, where: "MooncakeKVManager._do_staging_transfer (warning_once)", read: MOONCAKE_NEW },
  { head: "len(prefill_state_indices) = ", level: "warning", file: MOONCAKE, where: "MooncakeKVManager.maybe_send_extra", read: MOONCAKE_NEW },
  { head: "len(chunked_dst_kv_indice) = ", level: "warning", file: MOONCAKE, where: "MooncakeKVManager.transfer_worker; NixlKVManager.transfer_worker", read: `${MOONCAKE_NEW}, nixl ${INDEX_COPY}` },
  { head: "Using Mamba state slice transfer for different runtime attention TP sizes: prefill=", level: "warning", file: MOONCAKE, where: "MooncakeKVManager._send_mamba_state_slice (warning_once)", read: MOONCAKE_NEW },
  // disaggregation/nixl/conn.py
  { head: "NIXL transport error for room ", level: "warning", file: NIXL, where: "NixlKVManager.transfer_worker", read: INDEX_COPY },
  { head: "Unexpected transfer worker error for room ", level: "error", file: NIXL, where: "NixlKVManager.transfer_worker (logger.exception)", read: INDEX_COPY, transfer: true, engine: "nixl" },
  { head: "Transfer for room ", level: "error", file: NIXL, where: "NixlKVReceiver.poll", read: `007ba532, ${INDEX_COPY}`, transfer: true, engine: "nixl" },
  { head: "Could not fetch prefill parallel info from bootstrap_addr: ", level: "error", file: NIXL, where: "NixlKVReceiver.send_metadata", read: INDEX_COPY, transfer: true, engine: "nixl" },
  { head: "decode_staging_thread: unexpected message tag ", level: "warning", file: NIXL, where: "NixlKVManager._start_decode_staging_thread", read: INDEX_COPY },
  { head: "STAGING_REQ received for unregistered room=", level: "warning", file: NIXL, where: "NixlKVManager._handle_staging_req", read: INDEX_COPY },
  { head: "Using Mamba state slice transfer for different TP sizes. ", level: "warning", file: NIXL, where: "NixlKVManager._send_mamba_state_slice (warning_once)", read: INDEX_COPY },
  // mem_cache/storage/mooncake_store/mooncake_store.py (HiCache's Mooncake store backend)
  { head: "failed to setup mooncake store, error code: ", level: "error", file: STORE, where: "MooncakeStore.__init__", read: "8704aa6a", transfer: true, engine: "mooncake" },
  { head: "Launch mooncake store server timeout", level: "error", file: STORE, where: "MooncakeStore.check_server", read: "8704aa6a", transfer: true, engine: "mooncake" },
  { head: "failed to register buffer, error code: ", level: "error", file: STORE, where: "MooncakeStore.register_mem_pool_host", read: "8704aa6a", transfer: true, engine: "mooncake" },
  { head: "Failed to register buffer to Mooncake Store: ", level: "error", file: STORE, where: "MooncakeStore.register_mem_pool_host", read: "8704aa6a", transfer: true, engine: "mooncake" },
  { head: "Configuration loading failed: ", level: "error", file: STORE, where: "MooncakeStore.__init__", read: "8704aa6a" },
  { head: "An error occurred while loading the configuration: ", level: "error", file: STORE, where: "MooncakeStore.__init__", read: "8704aa6a" },
  // managers/scheduler.py (an index copy of the pre-disaggregation era; run_scheduler_process's head is the same in every copy the index holds)
  { head: "Scheduler hit an exception: ", level: "error", file: "managers/scheduler.py", where: "run_scheduler_process", read: INDEX_COPY },
  { head: "Watchdog timeout (", level: "error", file: "managers/scheduler.py", where: "Scheduler.watchdog_thread", read: INDEX_COPY },
  { head: "Multimodal prompt is too long after expanding multimodal tokens. ", level: "error", file: "managers/scheduler.py", where: "Scheduler.handle_generate_request", read: INDEX_COPY },
  { head: "The SGLang server is not configured to enable custom logit processor.", level: "warning", file: "managers/scheduler.py", where: "Scheduler.handle_generate_request", read: INDEX_COPY },
  { head: "Cache not flushed because there are pending requests. ", level: "warning", file: "managers/scheduler.py", where: "Scheduler.flush_cache", read: INDEX_COPY },
  // disaggregation/ascend/transfer_engine.py (one copy adds ` for store_url={…}` before the period)
  { head: "Ascend Transfer Engine initialization failed", level: "error", file: "disaggregation/ascend/transfer_engine.py", where: "AscendTransferEngine.initialize", read: "index copies" },
  // entrypoints/http_server.py
  { head: "Health check failed. Server couldn't get a response from detokenizer for last ", level: "error", file: "entrypoints/http_server.py", where: "health_generate", read: "index copies" },
  { head: "Initialization failed. warmup error: ", level: "error", file: "entrypoints/http_server.py", where: "_wait_and_warmup", read: "index copies" },
  // managers/tokenizer_manager.py
  { head: "Signal SIGTERM received while force shutdown flag set. Force exiting.", level: "error", file: "managers/tokenizer_manager.py", where: "TokenizerManager.sigterm_watchdog", read: INDEX_COPY },
  // entrypoints/engine.py (`{exitcode=}. {pid=}` in f-string copies, `an exit code %d. pid=%d` in %-style ones)
  { head: "Child process unexpectedly failed with ", level: "warning", file: "entrypoints/engine.py", where: "_set_envs_and_config sigchld_handler", read: "index copies" },
];

/** Heads by their first 12 characters (the shortest head kept). */
const PREFIX = 12;
const BY_PREFIX = new Map<string, SglangHead[]>();
for (const h of SGLANG_HEADS) {
  const key = h.head.substring(0, PREFIX);
  BY_PREFIX.set(key, [...(BY_PREFIX.get(key) ?? []), h].sort((a, b) => b.head.length - a.head.length));
}

/** The head of the SGLang logger call a message opens with (the longest that matches), else undefined. */
export function sglangHeadOf(message: string): SglangHead | undefined {
  return BY_PREFIX.get(message.substring(0, PREFIX))?.find((h) => message.startsWith(h.head));
}
