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
/** The newest snapshot of the index read in the tenth session: tokenizer_manager.py, cache_controller.py, hicache_storage.py, engine.py. */
const SNAPSHOT = "001067ff";
const TOKENIZER = "managers/tokenizer_manager.py";
const DP_CONTROLLER = "managers/data_parallel_controller.py";
const CACHE_CONTROLLER = "managers/cache_controller.py";
const UPDATE_WEIGHTS = "managers/scheduler_update_weights_mixin.py";
const HICACHE_FILE = "mem_cache/hicache_storage.py";
const NIXL_STORE = "mem_cache/storage/nixl/hicache_nixl.py";
const MODEL_RUNNER = "model_executor/model_runner.py";
const ALLREDUCE = "distributed/device_communicators/custom_all_reduce.py";
const HTTP_SERVER = "entrypoints/http_server.py";
const ENGINE = "entrypoints/engine.py";
const XGRAMMAR = "constrained/xgrammar_backend.py";
const EPLB = "eplb/eplb_manager.py";
const LORA = "lora/lora_manager.py";
const MODEL_RUNNER_READ = "0005834c";
const NIXL_STORE_READ = "070d0bee";
/** The newest copies of the index read: decode.py (98 KB, DeepSeek V4 and decode-side HiCache) and scheduler.py (250 KB, scheduler_components). */
const DECODE_NEW = "0035ca42";
const SCHEDULER = "managers/scheduler.py";
const SCHEDULER_NEW = "0003215c";
const MORI = "disaggregation/mori/conn.py";
/** mori/conn.py was read at the same index commit as common/conn.py's newer copy. */
const MORI_READ = COMMON_NEW;
const STAGING = "disaggregation/common/staging_handler.py";
/** staging_handler.py and decode_hicache_mixin.py were read at one commit. */
const STAGING_READ = "008b79d2";
const STORE_NEW = "00fe477f";
const UTILS_COMMON = "utils/common.py";
const UTILS_COMMON_READ = "004f0c7a";

export const SGLANG_HEADS: readonly SglangHead[] = [
  // disaggregation/decode.py
  { head: "Decode handshake failed for request ", level: "error", file: DECODE, where: "DecodePreallocQueue._update_handshake_waiters", read: `278e503a, ${DECODE_NEW}, ${INDEX_COPY}`, transfer: true },
  { head: "Decode transfer failed for request ", level: "error", file: DECODE, where: "DecodeTransferQueue.pop_transferred", read: `278e503a, ${DECODE_NEW}, ${INDEX_COPY}`, transfer: true },
  { head: "Could not fetch prefill parallel info from ", level: "error", file: DECODE, where: "DecodePreallocQueue._ensure_prefill_info", read: `${DECODE_NEW}, ${INDEX_COPY}`, transfer: true },
  { head: "Context corruption detected: Request ", level: "error", file: DECODE, where: "DecodeTransferQueue._commit_transfer_to_req", read: `${DECODE_NEW}, ${INDEX_COPY}` },
  { head: "Metadata unexpectedly not ready after readiness gate: request ", level: "error", file: DECODE, where: "DecodeTransferQueue._commit_transfer_to_req", read: DECODE_NEW },
  { head: "Eviction insufficient: needed ", level: "warning", file: DECODE, where: "DecodePreallocQueue._pre_alloc", read: DECODE_NEW },
  // disaggregation/decode_hicache_mixin.py: a failed L3 prefetch degrades to the host tier; a failed load-back fails the request, which decode.py logs as its transfer's failure.
  { head: "HiCache L3 prefetch failed for rid=", level: "warning", file: "disaggregation/decode_hicache_mixin.py", where: "DecodeHiCachePreallocMixin._start_hicache_prefetch", read: STAGING_READ },
  { head: "HiCache load_back failed for rid=", level: "warning", file: "disaggregation/decode_hicache_mixin.py", where: "DecodeHiCacheTransferMixin._try_hicache_queue_load_back", read: STAGING_READ },
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
  // disaggregation/mori/conn.py (AMD's Mori IO engine; its threads log and go on to the next message)
  { head: "Mori transfer worker failed for room ", level: "error", file: MORI, where: "MoriKVManager._transfer_worker (logger.exception)", read: MORI_READ, transfer: true },
  { head: "Mori transfer worker failover failed for room ", level: "error", file: MORI, where: "MoriKVManager._transfer_worker (logger.exception)", read: MORI_READ, transfer: true },
  { head: "Mori KV transfer submission failed for bootstrap_room=", level: "error", file: MORI, where: "MoriKVManager.add_transfer_request (logger.exception)", read: MORI_READ, transfer: true },
  { head: "Failed to register remote peer", level: "error", file: MORI, where: "MoriKVManager._handle_register_message (logger.exception)", read: MORI_READ, transfer: true },
  { head: "Failed to parse transfer info message", level: "error", file: MORI, where: "MoriKVManager._handle_transfer_message (logger.exception)", read: MORI_READ, transfer: true },
  { head: "Bootstrap worker failed", level: "error", file: MORI, where: "MoriKVManager._start_bootstrap_thread (logger.exception)", read: MORI_READ, transfer: true },
  { head: "Decode status worker failed", level: "error", file: MORI, where: "MoriKVManager._start_decode_thread (logger.exception)", read: MORI_READ, transfer: true },
  { head: "Failed to sync status ", level: "error", file: MORI, where: "MoriKVManager.notify_decode_status (logger.exception)", read: MORI_READ, transfer: true },
  { head: "Received malformed bootstrap message", level: "warning", file: MORI, where: "MoriKVManager._validate_message", read: MORI_READ },
  { head: "Received malformed status message on decode worker", level: "warning", file: MORI, where: "MoriKVManager._start_decode_thread", read: MORI_READ },
  { head: "Incomplete status payload received", level: "warning", file: MORI, where: "MoriKVManager._start_decode_thread", read: MORI_READ },
  { head: "Unknown status code ", level: "warning", file: MORI, where: "MoriKVManager._start_decode_thread", read: MORI_READ },
  { head: "Using Mamba state slice transfer for different TP sizes between prefill and decode. Prefill attn_tp_size=", level: "warning", file: MORI, where: "MoriKVManager._send_mamba_state (warning_once)", read: MORI_READ },
  { head: "State index length mismatch for ", level: "warning", file: MORI, where: "MoriKVManager._send_swa_dsa_state", read: MORI_READ },
  // disaggregation/common/staging_handler.py (heterogeneous-TP staging; `[STAGING_REQ] alloc failed room=` is left out: its prefill falls back to the
  // slice path in this copy and fails the requests in mooncake/conn.py's, and `[STAGING] room=` opens too generically)
  { head: "[STAGING] decode prefix length ", level: "error", file: STAGING, where: "DecodeStagingHandler.register_decode_req", read: STAGING_READ, transfer: true },
  { head: "[STAGING] releasing unscattered staging allocation room=", level: "warning", file: STAGING, where: "DecodeStagingHandler.release_room", read: STAGING_READ },
  { head: "[STAGING] submit_chunk_scatter: room=", level: "warning", file: STAGING, where: "DecodeStagingHandler.submit_chunk_scatter", read: STAGING_READ },
  { head: "submit_chunk_scatter failed room=", level: "warning", file: STAGING, where: "DecodeStagingHandler.submit_chunk_scatter", read: STAGING_READ },
  { head: "Staging chunk arrived for unregistered room=", level: "warning", file: STAGING, where: "DecodeStagingHandler.handle_chunk_arrived", read: STAGING_READ },
  { head: "[STAGING] submit_last_scatter_async: room=", level: "warning", file: STAGING, where: "DecodeStagingHandler.submit_last_scatter_async", read: STAGING_READ },
  { head: "STAGING_RSP RECV but tinfo=None room=", level: "warning", file: STAGING, where: "handle_staging_rsp", read: STAGING_READ },
  { head: "STAGING_REQ ignored: allocator is None room=", level: "warning", file: STAGING, where: "handle_staging_req", read: STAGING_READ },
  { head: "STAGING_REQ dropped: no receiver for room=", level: "warning", file: STAGING, where: "handle_staging_req", read: STAGING_READ },
  // mem_cache/storage/mooncake_store/mooncake_store.py (HiCache's Mooncake store backend)
  { head: "failed to setup mooncake store, error code: ", level: "error", file: STORE, where: "MooncakeStore.__init__", read: "8704aa6a", transfer: true, engine: "mooncake" },
  { head: "Launch mooncake store server timeout", level: "error", file: STORE, where: "MooncakeStore.check_server", read: "8704aa6a", transfer: true, engine: "mooncake" },
  { head: "failed to register buffer, error code: ", level: "error", file: STORE, where: "MooncakeStore.register_mem_pool_host", read: "8704aa6a", transfer: true, engine: "mooncake" },
  { head: "Failed to register buffer to Mooncake Store: ", level: "error", file: STORE, where: "MooncakeStore.register_mem_pool_host", read: "8704aa6a", transfer: true, engine: "mooncake" },
  { head: "Configuration loading failed: ", level: "error", file: STORE, where: "MooncakeStore.__init__", read: "8704aa6a" },
  { head: "An error occurred while loading the configuration: ", level: "error", file: STORE, where: "MooncakeStore.__init__", read: "8704aa6a" },
  { head: "Failed to register buffer, error code: ", level: "error", file: STORE, where: "MooncakeBaseStore.register_buffer", read: STORE_NEW, transfer: true, engine: "mooncake" },
  { head: "Mooncake group semantics is enabled, but the installed Mooncake package does not support ReplicateConfig.group_ids. Falling back to the existing batch_put_from path.", level: "warning", file: STORE, where: "MooncakeStore.__init__", read: STORE_NEW },
  { head: "Failed to parse device_name as JSON: ", level: "warning", file: STORE, where: "MooncakeStore.__init__", read: STORE_NEW },
  { head: "The installed Mooncake version does not support the ", level: "warning", file: STORE, where: "MooncakeStore.__init__ (setup() retried without the parameters)", read: STORE_NEW },
  // managers/scheduler.py (an index copy of the pre-disaggregation era; run_scheduler_process's head is the same in every copy the index holds)
  { head: "Scheduler hit an exception: ", level: "error", file: SCHEDULER, where: "run_scheduler_process", read: `${INDEX_COPY}, ${SCHEDULER_NEW}` },
  { head: "Watchdog timeout (", level: "error", file: SCHEDULER, where: "Scheduler.watchdog_thread", read: INDEX_COPY },
  { head: "Multimodal prompt is too long after expanding multimodal tokens. ", level: "error", file: SCHEDULER, where: "Scheduler.handle_generate_request", read: INDEX_COPY },
  { head: "The SGLang server is not configured to enable custom logit processor.", level: "warning", file: SCHEDULER, where: "Scheduler.handle_generate_request", read: INDEX_COPY },
  { head: "Cache not flushed because there are pending requests. ", level: "warning", file: SCHEDULER, where: "Scheduler.flush_cache", read: `${INDEX_COPY}, ${SCHEDULER_NEW}` },
  // managers/scheduler.py, the newest copy read (its watchdog, output and weight paths moved to managers/scheduler_components/)
  { head: "Invalid request: Disaggregated request received without bootstrap room id. ", level: "error", file: SCHEDULER, where: "Scheduler.handle_generate_request", read: SCHEDULER_NEW },
  { head: "Multimodal feature reconstruction failed (", level: "error", file: SCHEDULER, where: "Scheduler._materialize_cuda_vmm_inputs", read: SCHEDULER_NEW },
  { head: "Attach HiCache storage backend failed with exception.", level: "error", file: SCHEDULER, where: "Scheduler.attach_hicache_storage_wrapped (logger.exception)", read: SCHEDULER_NEW },
  { head: "Detach HiCache storage backend failed with exception.", level: "error", file: SCHEDULER, where: "Scheduler.detach_hicache_storage_wrapped (logger.exception)", read: SCHEDULER_NEW },
  { head: "Failed to call rpc ", level: "error", file: SCHEDULER, where: "Scheduler.handle_rpc_request", read: SCHEDULER_NEW },
  { head: "KV cache pool is full. Retract requests. #retracted_reqs: ", level: "warning", file: SCHEDULER, where: "Scheduler.update_running_batch", read: SCHEDULER_NEW },
  { head: "Capping max_new_tokens of request ", level: "warning", file: SCHEDULER, where: "Scheduler.init_req_max_new_tokens", read: SCHEDULER_NEW },
  { head: "Failed to get world size in mm_inputs handling with ", level: "warning", file: SCHEDULER, where: "Scheduler._process_and_broadcast_mm_inputs", read: SCHEDULER_NEW },
  { head: "Failed to load multimodal processor in scheduler; M-RoPE fallback will not be available.", level: "warning", file: SCHEDULER, where: "Scheduler.init_tokenizer", read: SCHEDULER_NEW },
  { head: "Reasoning parser think_end_token ", level: "warning", file: SCHEDULER, where: "Scheduler.init_tokenizer", read: SCHEDULER_NEW },
  { head: "Chunked prefill is disabled for multimodal models with the Transformers backend to avoid partial multimodal chunk mismatches.", level: "warning", file: SCHEDULER, where: "Scheduler.init_chunked_prefill", read: SCHEDULER_NEW },
  { head: "load snapshot writer init failed: ", level: "warning", file: SCHEDULER, where: "Scheduler.init_ipc_channels", read: SCHEDULER_NEW },
  { head: "load snapshot publish failed: ", level: "warning", file: SCHEDULER, where: "Scheduler.publish_load_snapshot", read: SCHEDULER_NEW },
  { head: "Hierarchical cache is not enabled.", level: "warning", file: SCHEDULER, where: "Scheduler.clear_hicache_storage_wrapped (the root logger)", read: SCHEDULER_NEW },
  // disaggregation/ascend/transfer_engine.py (one copy adds ` for store_url={…}` before the period)
  { head: "Ascend Transfer Engine initialization failed", level: "error", file: "disaggregation/ascend/transfer_engine.py", where: "AscendTransferEngine.initialize", read: "index copies" },
  // entrypoints/http_server.py
  { head: "Health check failed. Server couldn't get a response from detokenizer for last ", level: "error", file: HTTP_SERVER, where: "health_generate", read: "0025436e, index copies" },
  { head: "Initialization failed. warmup error: ", level: "error", file: HTTP_SERVER, where: "_execute_server_warmup (_wait_and_warmup in older copies)", read: "0025436e, index copies" },
  { head: "[http_server] Error: ", level: "error", file: HTTP_SERVER, where: "generate_request", read: "0025436e" },
  // managers/tokenizer_manager.py
  { head: "Signal SIGTERM received while force shutdown flag set. Force exiting.", level: "error", file: TOKENIZER, where: "TokenizerManager.sigterm_watchdog", read: `${SNAPSHOT}, ${INDEX_COPY}` },
  // entrypoints/engine.py (`{exitcode=}. {pid=}` in f-string copies, `an exit code %d. pid=%d` in %-style ones)
  { head: "Child process unexpectedly failed with ", level: "warning", file: ENGINE, where: "_set_envs_and_config sigchld_handler", read: "index copies" },
  // managers/tokenizer_manager.py (the rest of the file)
  { head: "Signal SIGTERM received while health check failed. Force exiting.", level: "error", file: TOKENIZER, where: "TokenizerManager.sigterm_watchdog", read: SNAPSHOT },
  { head: "Received output for ", level: "error", file: TOKENIZER, where: "TokenizerManager._handle_batch_output", read: SNAPSHOT },
  { head: "TokenizerManager hit an exception: ", level: "error", file: TOKENIZER, where: "print_exception_wrapper", read: SNAPSHOT },
  { head: "SIGQUIT received. ", level: "error", file: TOKENIZER, where: "SignalHandler.running_phase_sigquit_handler", read: SNAPSHOT },
  { head: "Dumping requests before crash. ", level: "error", file: TOKENIZER, where: "TokenizerManager.dump_requests_before_crash", read: SNAPSHOT },
  { head: "No live scheduler processes found; skipping py-spy and CUDA coredump.", level: "error", file: TOKENIZER, where: "TokenizerManager.dump_requests_before_crash", read: SNAPSHOT },
  { head: "Failed to pickle dump with server_args: ", level: "error", file: TOKENIZER, where: "TokenizerManager._dump_data_to_file, dump_requests_before_crash", read: SNAPSHOT },
  { head: "Failed to snapshot the resolved config for the dump: ", level: "error", file: TOKENIZER, where: "TokenizerManager._dump_config_snapshot", read: SNAPSHOT },
  { head: "Falling back to nested input top logprobs for rid=", level: "error", file: TOKENIZER, where: "TokenizerManager.add_logprob_to_meta_info", read: SNAPSHOT },
  { head: "SIGTERM received. ", level: "warning", file: TOKENIZER, where: "SignalHandler.sigterm_handler", read: SNAPSHOT },
  { head: "Encoder embedding not available, falling back to local mm processing", level: "warning", file: TOKENIZER, where: "TokenizerManager._tokenize_one_request", read: SNAPSHOT },
  { head: "mm_hashes length (", level: "warning", file: TOKENIZER, where: "TokenizerManager._tokenize_one_request", read: SNAPSHOT },
  { head: "Ignoring malformed mm_hashes entry ", level: "warning", file: TOKENIZER, where: "TokenizerManager._tokenize_one_request", read: SNAPSHOT },
  { head: "Requested token count (", level: "warning", file: TOKENIZER, where: "TokenizerManager._validate_one_request", read: SNAPSHOT },
  { head: "Streaming backlog: rid=", level: "warning", file: TOKENIZER, where: "TokenizerManager._coalesce_streaming_chunks", read: SNAPSHOT },
  { head: "Sending a single large batch with parallel sampling (n > 1) has not been well optimized. ", level: "warning", file: TOKENIZER, where: "TokenizerManager._handle_batch_request", read: SNAPSHOT },
  { head: "Ignore abort_request with empty rid and abort_all=False", level: "warning", file: TOKENIZER, where: "TokenizerManager.abort_request", read: SNAPSHOT },
  { head: "Open session response arrived after waiter cleanup: ", level: "warning", file: TOKENIZER, where: "TokenizerManager._handle_open_session_req_output", read: SNAPSHOT },
  { head: "Batch request (batch_size=", level: "warning", file: TOKENIZER, where: "TokenizerManager._should_dispatch_to_encoder", read: SNAPSHOT },
  // managers/detokenizer_manager.py, data_parallel_controller.py, tp_worker_overlap_thread.py, session_controller.py
  { head: "DetokenizerManager hit an exception: ", level: "error", file: "managers/detokenizer_manager.py", where: "run_detokenizer_process", read: "000935bd" },
  { head: "DataParallelController hit an exception: ", level: "error", file: DP_CONTROLLER, where: "run_data_parallel_controller_process", read: "000a3db1" },
  { head: "Scheduler or DataParallelController ", level: "error", file: DP_CONTROLLER, where: "run_data_parallel_controller_process (engine.py's block_until_scheduler_exits logs the same)", read: `000a3db1, engine ${SNAPSHOT}` },
  { head: "Timeout waiting for worker ports from node 0", level: "error", file: DP_CONTROLLER, where: "DataParallelController._receive_ports_as_client", read: "000a3db1" },
  { head: "The 'minimum_tokens' load balancing method is deprecated for now and will introduced later.", level: "warning", file: DP_CONTROLLER, where: "DataParallelController.minimum_tokens_scheduler", read: "000a3db1" },
  { head: "TpModelWorkerClient hit an exception: ", level: "error", file: "managers/tp_worker_overlap_thread.py", where: "TpModelWorkerClient.forward_thread_func", read: "index copies" },
  { head: "The request in a session is appending to a request that hasn't finished.", level: "warning", file: "managers/session_controller.py", where: "Session.create_req (the root logger)", read: "00385336" },
  // managers/scheduler_output_processor_mixin.py, scheduler_update_weights_mixin.py (the model runner's messages it logs)
  { head: "Grammar accept_token failed for req ", level: "error", file: "managers/scheduler_output_processor_mixin.py", where: "SchedulerOutputProcessorMixin.process_batch_result_prefill, process_batch_result_decode", read: "004ec010" },
  { head: "check_weights see error: ", level: "warning", file: UPDATE_WEIGHTS, where: "SchedulerUpdateWeightsMixin.check_weights", read: "018c9109" },
  { head: "Failed to get model loader: ", level: "error", file: UPDATE_WEIGHTS, where: "SchedulerUpdateWeightsMixin.update_weights_from_disk (ModelRunner.update_weights_from_disk's message)", read: `018c9109, model_runner ${MODEL_RUNNER_READ}` },
  { head: "Failed to get weights iterator: ", level: "error", file: UPDATE_WEIGHTS, where: "SchedulerUpdateWeightsMixin.update_weights_from_disk (ModelRunner.update_weights_from_disk's message)", read: `018c9109, model_runner ${MODEL_RUNNER_READ}` },
  { head: "Failed to update weights: ", level: "error", file: UPDATE_WEIGHTS, where: "SchedulerUpdateWeightsMixin.update_weights_from_disk (ModelRunner.update_weights_from_disk's message)", read: `018c9109, model_runner ${MODEL_RUNNER_READ}` },
  // managers/cache_controller.py (HiCache's host and storage tiers)
  { head: "Failed to stop HiCache storage threads cleanly: ", level: "error", file: CACHE_CONTROLLER, where: "HiCacheController._stop_storage_threads", read: SNAPSHOT },
  { head: "Stop storage threads failed: ", level: "error", file: CACHE_CONTROLLER, where: "HiCacheController.detach_storage_backend (logger.exception)", read: SNAPSHOT },
  { head: "Failed to close storage backend cleanly.", level: "error", file: CACHE_CONTROLLER, where: "HiCacheController.detach_storage_backend (logger.exception)", read: SNAPSHOT },
  { head: "Prefetch operation ", level: "warning", file: CACHE_CONTROLLER, where: "HiCacheController._page_get_zero_copy, _generic_page_get", read: SNAPSHOT },
  { head: "HiCache prefetch rate-limited: ", level: "warning", file: CACHE_CONTROLLER, where: "HiCacheController._log_rate_limited", read: SNAPSHOT },
  { head: "Write page to storage: ", level: "warning", file: CACHE_CONTROLLER, where: "HiCacheController._page_backup", read: SNAPSHOT },
  // mem_cache/hicache_storage.py (HiCacheFile, the file backend)
  { head: "Failed to save tensor ", level: "error", file: HICACHE_FILE, where: "HiCacheFile.set", read: SNAPSHOT },
  { head: "Failed to clear HiCacheFile storage: ", level: "error", file: HICACHE_FILE, where: "HiCacheFile.clear", read: SNAPSHOT },
  // mem_cache/storage/nixl/hicache_nixl.py (HiCache's NIXL storage backend: its transfers are NIXL's)
  { head: "Failed to create transfer request: ", level: "error", file: NIXL_STORE, where: "HiCacheNixl._xfer_and_wait", read: NIXL_STORE_READ, transfer: true, engine: "nixl" },
  { head: "Failed to execute transfer: ", level: "error", file: NIXL_STORE, where: "HiCacheNixl._xfer_and_wait", read: NIXL_STORE_READ, transfer: true, engine: "nixl" },
  { head: "Failed to build host xfer descs", level: "error", file: NIXL_STORE, where: "HiCacheNixl._xfer_pre_registered", read: NIXL_STORE_READ, transfer: true, engine: "nixl" },
  { head: "Mismatch between number of host buffers and keys", level: "error", file: NIXL_STORE, where: "HiCacheNixl._xfer_pre_registered", read: NIXL_STORE_READ },
  { head: "Mismatch between number of key_strs and host_buffers", level: "error", file: NIXL_STORE, where: "HiCacheNixl._batch_xfer", read: NIXL_STORE_READ },
  { head: "HiCacheNixl: hybrid pool ", level: "error", file: NIXL_STORE, where: "HiCacheNixl._get_hybrid_zero_copy_buffers, _prepare_pool_transfer", read: NIXL_STORE_READ },
  { head: "HiCacheNixl: mismatch between number of keys and number of buffer meta entries, keys: ", level: "error", file: NIXL_STORE, where: "HiCacheNixl._get_location_and_size_list_from_meta", read: NIXL_STORE_READ },
  { head: "HiCacheNixl: batch size ", level: "error", file: NIXL_STORE, where: "HiCacheNixl._batch_preprocess", read: NIXL_STORE_READ },
  { head: "HiCacheNixl batch_get_v1: register_mem_pool_host must be called first", level: "error", file: NIXL_STORE, where: "HiCacheNixl.batch_get_v1", read: NIXL_STORE_READ },
  { head: "HiCacheNixl batch_set_v1: register_mem_pool_host must be called first", level: "error", file: NIXL_STORE, where: "HiCacheNixl.batch_set_v1", read: NIXL_STORE_READ },
  { head: "HiCacheNixl: empty keys or mismatch in keys and host_indices lengths. keys: ", level: "warning", file: NIXL_STORE, where: "HiCacheNixl._batch_preprocess", read: NIXL_STORE_READ },
  { head: "HiCacheNixl: O_DIRECT is active but ", level: "warning", file: NIXL_STORE, where: "HiCacheNixl.register_mem_pool_host, _hybrid_pool_supports_zero_copy", read: NIXL_STORE_READ },
  // model_executor/model_runner.py (the logger.error(message) calls log the message's own head)
  { head: "Failed to register transfer engine info for tp_rank=", level: "error", file: MODEL_RUNNER, where: "ModelRunner._register_to_engine_info_bootstrap", read: MODEL_RUNNER_READ },
  { head: "Failed to init group: ", level: "error", file: MODEL_RUNNER, where: "ModelRunner.init_weights_send_group_for_remote_instance", read: MODEL_RUNNER_READ },
  { head: "Failed to send weights: ", level: "error", file: MODEL_RUNNER, where: "ModelRunner.send_weights_to_remote_instance", read: MODEL_RUNNER_READ },
  { head: "Failed to initialize custom process group: ", level: "error", file: MODEL_RUNNER, where: "ModelRunner.init_weights_update_group", read: MODEL_RUNNER_READ },
  { head: "Failed to destroy custom process group: ", level: "error", file: MODEL_RUNNER, where: "ModelRunner.destroy_weights_update_group", read: MODEL_RUNNER_READ },
  { head: "Failed to update parameter online: ", level: "error", file: MODEL_RUNNER, where: "ModelRunner.update_weights_from_distributed, _update_bucketed_weights_from_distributed", read: MODEL_RUNNER_READ },
  { head: "Error when getting parameter ", level: "error", file: MODEL_RUNNER, where: "ModelRunner.get_weights_by_name", read: MODEL_RUNNER_READ },
  { head: "IPC weight update failed: ", level: "error", file: MODEL_RUNNER, where: "ModelRunner.update_weights_from_ipc", read: MODEL_RUNNER_READ },
  { head: "The memory capacity is unbalanced. Some GPUs may be occupied by other processes. ", level: "warning", file: MODEL_RUNNER, where: "ModelRunner.init_torch_distributed", read: MODEL_RUNNER_READ },
  { head: "init_cpu_threads_env and shared memory based AllReduce is disabled", level: "warning", file: MODEL_RUNNER, where: "ModelRunner.init_torch_distributed", read: MODEL_RUNNER_READ },
  { head: "Using FP8 KV cache but no scaling factors provided. ", level: "warning", file: MODEL_RUNNER, where: "ModelRunner.load_model", read: MODEL_RUNNER_READ },
  { head: "FP4 (E2M1) KV Cache might lead to a accuracy drop!", level: "warning", file: MODEL_RUNNER, where: "ModelRunner.configure_kv_cache_dtype", read: MODEL_RUNNER_READ },
  { head: "--kv-cache-dtype falls back to 'auto' because this torch version does not support torch.float4_e2m1fn_x2", level: "warning", file: MODEL_RUNNER, where: "ModelRunner.configure_kv_cache_dtype", read: MODEL_RUNNER_READ },
  { head: "Overriding draft attention backend to ", level: "warning", file: MODEL_RUNNER, where: "ModelRunner._get_attention_backend", read: MODEL_RUNNER_READ },
  { head: "Warning: Attention backend specified by --attention-backend or default backend might be overridden.", level: "warning", file: MODEL_RUNNER, where: "ModelRunner._get_attention_backend", read: MODEL_RUNNER_READ },
  // Whole sentences: `Disable piecewise CUDA graph because --disable-piecewise-cuda-graph is set` and `… some layers do not apply
  // Standard GQA` open the same way at info level (piecewise_cuda_graph copies of the index; log_info_on_rank0 here).
  { head: "Disable piecewise CUDA graph because the model is not a language model", level: "warning", file: MODEL_RUNNER, where: "ModelRunner.init_prefill_cuda_graph", read: MODEL_RUNNER_READ },
  { head: "Disable piecewise CUDA graph because the capture size is not set", level: "warning", file: MODEL_RUNNER, where: "ModelRunner.init_prefill_cuda_graph", read: MODEL_RUNNER_READ },
  { head: "Disable piecewise CUDA graph because the model does not have a 'layers' attribute", level: "warning", file: MODEL_RUNNER, where: "ModelRunner.init_prefill_cuda_graph", read: MODEL_RUNNER_READ },
  { head: "Detected the current machine has ", level: "warning", file: MODEL_RUNNER, where: "ModelRunner.init_threads_binding", read: MODEL_RUNNER_READ },
  { head: "DFLASH draft config num_target_layers=", level: "warning", file: MODEL_RUNNER, where: "ModelRunner.__init__", read: MODEL_RUNNER_READ },
  { head: "indexer-topk capture is CUDA-only; ", level: "warning", file: MODEL_RUNNER, where: "ModelRunner.init_indexer_capturer", read: MODEL_RUNNER_READ },
  { head: "Please install msprobe for tensor data dump", level: "warning", file: MODEL_RUNNER, where: "ModelRunner.init_msprobe", read: MODEL_RUNNER_READ },
  { head: "Please install mooncake for using remote instance transfer engine", level: "warning", file: MODEL_RUNNER, where: "ModelRunner.remote_instance_init_transfer_engine", read: MODEL_RUNNER_READ },
  // distributed/device_communicators/
  { head: "No available block found in ", level: "warning", file: "distributed/device_communicators/shm_broadcast.py", where: "MessageQueue.acquire_write", read: "1214112f" },
  // One row a reason: `Custom allreduce is disabled because of missing custom allreduce library` is info (index copies).
  { head: "Custom allreduce is disabled because this process group spans across nodes.", level: "warning", file: ALLREDUCE, where: "CustomAllreduce.__init__", read: "004e6561" },
  { head: "Custom allreduce is disabled due to an unsupported world size: ", level: "warning", file: ALLREDUCE, where: "CustomAllreduce.__init__", read: "004e6561" },
  { head: "Custom allreduce is disabled because it's not supported on more than two PCIe-only GPUs.", level: "warning", file: ALLREDUCE, where: "CustomAllreduce.__init__", read: "004e6561" },
  { head: "Custom allreduce is disabled because your platform lacks GPU P2P capability or P2P test failed.", level: "warning", file: ALLREDUCE, where: "CustomAllreduce.__init__", read: "004e6561" },
  // entrypoints/http_server.py, engine.py (the rest of both files)
  { head: "Weights are not ready after waiting ", level: "error", file: HTTP_SERVER, where: "_wait_weights_ready", read: "0025436e" },
  { head: "Can not initialize OpenAIServingResponses, error: ", level: "warning", file: HTTP_SERVER, where: "lifespan", read: "0025436e" },
  { head: "Signal handler is not added because the engine is not in the main thread.", level: "warning", file: ENGINE, where: "_set_envs_and_config", read: SNAPSHOT },
  { head: "Weight cache daemon (pid=", level: "warning", file: ENGINE, where: "Engine._terminate_weight_cache_daemons", read: SNAPSHOT },
  // constrained/ (xgrammar logs through the root logger)
  { head: "Skip unsupported ", level: "warning", file: "constrained/base_grammar_backend.py", where: "BaseGrammarBackend._not_supported", read: "022f7202" },
  { head: "Skip invalid json_schema: ", level: "warning", file: XGRAMMAR, where: "XGrammarGrammarBackend.dispatch_json", read: "00b76639" },
  { head: "Skip invalid ebnf: ", level: "warning", file: XGRAMMAR, where: "XGrammarGrammarBackend.dispatch_ebnf", read: "00b76639" },
  { head: "Skip invalid regex: ", level: "warning", file: XGRAMMAR, where: "XGrammarGrammarBackend.dispatch_regex, dispatch_structural_tag", read: "00b76639" },
  // eplb/, lora/, utils/common.py
  { head: "[EPLBManager] Error saving expert metadata: ", level: "error", file: EPLB, where: "EPLBManager.rebalance", read: "06120cc8" },
  { head: "[EPLBManager] Could not save expert metadata, import error: ", level: "warning", file: EPLB, where: "EPLBManager.rebalance", read: "06120cc8" },
  { head: "WARNING: get_module_name() is not defined, ", level: "warning", file: LORA, where: "LoRAManager.init_loras", read: "002c60aa" },
  { head: "WARNING: get_hidden_dim() is not defined, ", level: "warning", file: LORA, where: "LoRAManager.init_lora_memory_pool", read: "002c60aa" },
  { head: "get_bool_env_var(", level: "warning", file: UTILS_COMMON, where: "get_bool_env_var", read: UTILS_COMMON_READ },
  // utils/common.py in full (kill_process_tree logs nothing)
  { head: "Dummy health check server failed to start: ", level: "error", file: UTILS_COMMON, where: "launch_dummy_health_check_server (then raises)", read: UTILS_COMMON_READ },
  { head: "retry() failed once (", level: "warning", file: UTILS_COMMON, where: "retry", read: UTILS_COMMON_READ },
  { head: "Can not get local ip by remote", level: "warning", file: UTILS_COMMON, where: "get_local_ip_by_remote", read: UTILS_COMMON_READ },
  { head: "Fail to set RLIMIT_NOFILE: ", level: "warning", file: UTILS_COMMON, where: "set_ulimit", read: UTILS_COMMON_READ },
  { head: "Fail to set RLIMIT_STACK: ", level: "warning", file: UTILS_COMMON, where: "set_ulimit", read: UTILS_COMMON_READ },
  { head: "Failed to get GPU memory capacity from nvidia-smi, falling back to torch.cuda.mem_get_info().", level: "warning", file: UTILS_COMMON, where: "get_nvgpu_memory_capacity", read: UTILS_COMMON_READ },
  { head: "CPU device enabled, using torch native backend, low performance expected.", level: "warning", file: UTILS_COMMON, where: "get_device", read: UTILS_COMMON_READ },
  { head: "kill_itself_when_parent_died is only supported in linux.", level: "warning", file: UTILS_COMMON, where: "kill_itself_when_parent_died", read: UTILS_COMMON_READ },
  { head: "LONG GARBAGE COLLECTION DETECTED | Generation ", level: "warning", file: UTILS_COMMON, where: "configure_gc_warning (logger.warn)", read: UTILS_COMMON_READ },
  // managers/scheduler_components/invariant_checker.py: the idle leak check reports through utils/common.py raise_error_or_warn, a warning
  // (a ValueError instead where SGLANG_ENABLE_STRICT_MEM_CHECK_DURING_IDLE is set; `{pool_name} memory leak detected! …` opens with a placeholder)
  { head: "req_to_token_pool memory leak detected!available_size=", level: "warning", file: "managers/scheduler_components/invariant_checker.py", where: "SchedulerInvariantChecker._check_req_pool", read: `030c4212, utils/common.py ${UTILS_COMMON_READ}` },
  // mem_cache/common.py (managers/schedule_batch.py before the allocation moved): the KV pool could not hold a batch; the scheduler raises next.
  { head: "Prefill out of memory. Try to lower your batch size.", level: "error", file: "mem_cache/common.py", where: "alloc_for_extend (ScheduleBatch.alloc_token_slots in older copies)", read: INDEX_COPY },
  { head: "Decode out of memory. Try to lower your batch size.", level: "error", file: "mem_cache/common.py", where: "alloc_for_decode (ScheduleBatch.alloc_token_slots in older copies)", read: INDEX_COPY },
  // compilation/piecewise_context_manager.py: a capture or replay of the piecewise CUDA graph raised; the context manager logs
  // `"Piecewise CUDA Graph failed with error: %s\n%s"` with the exception and its three lines of advice, then re-raises
  // (the tc_piecewise copy of the index, enable_tc_piecewise_cuda_graph, logs the same). The advice lines continue the
  // record (ingest/formats/log/crash.ts pcgAdviceTailOf).
  { head: "Piecewise CUDA Graph failed with error: ", level: "error", file: "compilation/piecewise_context_manager.py", where: "enable_piecewise_cuda_graph (then raises)", read: "382abd60" },
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
