// Error-level prints that a healthy process makes on its way to a fallback
// (issue "Every failure in an operator's logs becomes a finding": no healthy
// excerpt flagged above low). Every error-level line is a failure unless the
// printing library's own source shows that the code after that very print
// carries on — skips a device, uses another allocator, keeps the store the
// launcher already serves. Each row is one such print, read in its source:
// the file its logger names as the line's place, the message as the call
// formats it, and what the code does next. A print that the same code also
// follows by raising or exiting is no row; its failing sibling (the same
// library's print on the path that gives up) stays a failure. A record no
// template read whose message is a row's is a warning that names its fallback
// (./unread.ts settleUnread). docs/log-templates.md "Error-level prints
// followed by a fallback" is written from these rows (./fallbackDocs.ts).

/** One error-level print whose code goes on working. */
export interface FallbackPrint {
  /** `library.name`, unique. */
  readonly id: string;
  /** The library and version range that print it. */
  readonly library: string;
  /** The level the call prints at, as its logger writes it. */
  readonly printed: string;
  /** The base name of the file the line's prefix names as its place (glog, absl, c10; an SGLang line's is its head's file); a line whose place the paste cut is read by its message alone. */
  readonly file: string;
  /** The whole message after the prefix, as the call formats it. */
  readonly message: RegExp;
  /** The format, `{x}` a value. */
  readonly format: string;
  /** What the code does after the print: the record's `fallback`. */
  readonly fallback: string;
  /** File and function where the print and what follows it were read, and which copies. */
  readonly source: string;
  /** The same library's print on the path that gives up, which stays a failure. */
  readonly failing: string;
}

/**
 * XLA's stream executor (in TensorFlow's and JAX's wheels) registers its cuDNN, cuFFT and cuBLAS factories when its
 * library loads; a second copy of XLA in the same process (TensorFlow imported beside JAX, or by transformers beside
 * PyTorch) finds each already registered. The print is the only effect: the factory registered first is used.
 */
function xlaFactoryPrint(plugin: string, file: string): FallbackPrint {
  return {
    id: `xla.${plugin.toLowerCase()}_factory_registered`,
    library: "XLA's stream executor (TensorFlow 2.15+, JAX; `external/local_xla/…` in TensorFlow's paths)",
    printed: "error (TensorFlow's `E …]`, absl's `E0000 00:00:…` before absl::InitializeLog)",
    file,
    message: new RegExp(`^Unable to register ${plugin} factory: Attempting to register factory for plugin ${plugin} when one has already been registered$`),
    format: `Unable to register ${plugin} factory: Attempting to register factory for plugin ${plugin} when one has already been registered`,
    fallback: `a second copy of XLA in the process found its ${plugin} factory already registered; the factory registered first is used and the import goes on`,
    source: `xla/stream_executor/cuda/${file} (the module initializer: \`LOG(ERROR) << "Unable to register ${plugin} factory: " << status.message()\` when PluginRegistry::RegisterFactory returns AlreadyExists, then it carries on) (openxla/xla and tensorflow/tensorflow, index copies)`,
    failing: `\`Attempting to initialize an instance of the ${plugin} support library with a non-CUDA StreamExecutor\` (the same file's factory, which returns no support library)`,
  };
}

export const FALLBACK_PRINTS: readonly FallbackPrint[] = [
  {
    id: "torchC10d.agent_store_bind",
    library: "PyTorch c10d (torchrun's agent store)",
    printed: "error (c10 `[E…]`, `C10D_ERROR`)",
    file: "TCPStore.cpp",
    message: /^\[c10d\] The server socket on \d+ has failed to bind\. TORCHELASTIC_USE_AGENT_STORE is enabled so ignoring the error\.$/,
    format: "[c10d] The server socket on {port} has failed to bind. TORCHELASTIC_USE_AGENT_STORE is enabled so ignoring the error.",
    fallback: "rank 0's store could not bind MASTER_PORT because torchrun's elastic agent already serves the store there; the rank connects to the agent's store as a client",
    source:
      "torch/csrc/distributed/c10d/TCPStore.cpp TCPStore::TCPStore: `catch (const SocketError& e)` prints this only when `useAgentStore && masterPort == opts.port`, and goes on to connect the client; every other bind failure is rethrown (`else { throw; }`) (pytorch/pytorch, index copies)",
    failing:
      "`[c10d] TCP client failed to connect/validate to host {host}:{port} - timed out (try={n}, timeout={ms}ms): {error}` (the same constructor, `C10D_ERROR` then `throw`)",
  },
  {
    id: "mooncakeStore.arena_init_failed",
    library: "Mooncake store v0.3.11+",
    printed: "error (glog `E`)",
    file: "utils.cpp",
    message: /^=== ARENA INITIALIZATION FAILED ===$/,
    format: "=== ARENA INITIALIZATION FAILED ===",
    fallback: "the opt-in arena allocator did not start; buffers are mapped with plain mmap() instead",
    source:
      "mooncake-store/src/utils.cpp initializeGlobalArena: `if (success) … else {` four `LOG(ERROR)`s, then `g_mmap_arena.reset();` and the function returns; allocate_buffer_mmap_memory maps each buffer itself when there is no arena (kvcache-ai/Mooncake v0.3.11 … main 3b5a5941)",
    failing: "`mmap failed (hugepage={yes|no}), size={n}, errno={e} ({strerror})` (utils.cpp allocate_buffer_mmap_memory: the buffer itself could not be mapped, `return nullptr`)",
  },
  {
    id: "mooncakeStore.arena_fallback_mmap",
    library: "Mooncake store v0.3.11+",
    printed: "error (glog `E`)",
    file: "utils.cpp",
    message: /^Falling back to traditional mmap\(\)$/,
    format: "Falling back to traditional mmap()",
    fallback: "the opt-in arena allocator did not start; buffers are mapped with plain mmap() instead",
    source: "mooncake-store/src/utils.cpp initializeGlobalArena, as `mooncakeStore.arena_init_failed` (v0.3.11 … main 3b5a5941)",
    failing: "`mmap failed (hugepage={yes|no}), size={n}, errno={e} ({strerror})` (utils.cpp allocate_buffer_mmap_memory)",
  },
  {
    id: "mooncakeStore.arena_fallback_hugepages",
    library: "Mooncake store v0.3.11+",
    printed: "error (glog `E`)",
    file: "utils.cpp",
    message: /^MC_STORE_USE_HUGEPAGE is set, so the fallback path will also require hugepages$/,
    format: "MC_STORE_USE_HUGEPAGE is set, so the fallback path will also require hugepages",
    fallback: "the opt-in arena allocator did not start; buffers are mapped with plain mmap() on huge pages instead",
    source: "mooncake-store/src/utils.cpp initializeGlobalArena, as `mooncakeStore.arena_init_failed`, printed when MC_STORE_USE_HUGEPAGE is set (v0.3.11 … main 3b5a5941)",
    failing: "`mmap failed (hugepage=yes), size={n}, errno={e} ({strerror})` (utils.cpp allocate_buffer_mmap_memory)",
  },
  {
    id: "mooncakeStore.arena_once",
    library: "Mooncake store v0.3.11+",
    printed: "error (glog `E`)",
    file: "utils.cpp",
    message: /^Arena initialization is only attempted once per process; restart after fixing the environment if you want to retry arena bring-up$/,
    format: "Arena initialization is only attempted once per process; restart after fixing the environment if you want to retry arena bring-up",
    fallback: "the opt-in arena allocator did not start; buffers are mapped with plain mmap() instead",
    source: "mooncake-store/src/utils.cpp initializeGlobalArena, as `mooncakeStore.arena_init_failed` (v0.3.11 … main 3b5a5941)",
    failing: "`mmap failed (hugepage={yes|no}), size={n}, errno={e} ({strerror})` (utils.cpp allocate_buffer_mmap_memory)",
  },
  {
    id: "mooncakeStore.arena_pool_hugepages",
    library: "Mooncake store v0.3.11+",
    printed: "error (glog `E`)",
    file: "mmap_arena.cpp",
    message: /^Arena hugepage mmap failed for pool_size=\d+ bytes, errno=\d+ \([^)]*\); regular-page fallback disabled because MC_STORE_USE_HUGEPAGE explicitly requested hugepages$/,
    format:
      "Arena hugepage mmap failed for pool_size={n} bytes, errno={e} ({strerror}); regular-page fallback disabled because MC_STORE_USE_HUGEPAGE explicitly requested hugepages",
    fallback: "the arena's pool could not be mapped on huge pages, so the arena does not start (`=== ARENA INITIALIZATION FAILED ===` follows); buffers are mapped with plain mmap() on huge pages instead",
    source:
      "mooncake-store/src/mmap_arena.cpp MmapArena::initialize (`return false;`), whose one caller is utils.cpp initializeGlobalArena, which falls back as `mooncakeStore.arena_init_failed` (v0.3.11 … main 3b5a5941)",
    failing: "`mmap failed (hugepage=yes), size={n}, errno={e} ({strerror})` (utils.cpp allocate_buffer_mmap_memory)",
  },
  {
    id: "mooncakeStore.arena_pool_mmap",
    library: "Mooncake store v0.3.11+",
    printed: "error (glog `E`)",
    file: "mmap_arena.cpp",
    message: /^Arena mmap failed: size=\d+, errno=\d+ \([^)]*\)$/,
    format: "Arena mmap failed: size={n}, errno={e} ({strerror})",
    fallback: "the arena's pool could not be mapped on regular pages either, so the arena does not start (`=== ARENA INITIALIZATION FAILED ===` follows); buffers are mapped one by one with plain mmap() instead",
    source:
      "mooncake-store/src/mmap_arena.cpp MmapArena::initialize (`return false;` after the retry without huge pages), whose one caller is utils.cpp initializeGlobalArena, which falls back as `mooncakeStore.arena_init_failed` (v0.3.11 … main 3b5a5941)",
    failing: "`mmap failed (hugepage={yes|no}), size={n}, errno={e} ({strerror})` (utils.cpp allocate_buffer_mmap_memory)",
  },
  {
    id: "mooncakeTransferEngine.hca_path_unresolved",
    library: "Mooncake transfer engine v0.3.0+",
    printed: "error (glog `E`, `PLOG`: the errno's text appended)",
    file: "topology.cpp",
    message: /^listInfiniBandDevices: realpath \/sys\/class\/infiniband\/\S+\/\.\.\/\.\. failed(?:: .* \[\d+\])?$/,
    format: "listInfiniBandDevices: realpath /sys/class/infiniband/{device}/../.. failed: {strerror(errno)} [{errno}]",
    fallback: "the RDMA device whose sysfs path does not resolve (no PCI bus id, no NUMA node) is left out of the topology; discovery goes on with the other devices",
    source:
      "mooncake-transfer-engine/src/topology.cpp listInfiniBandDevices: `PLOG(ERROR) << …; continue;` in the loop over ibv_get_device_list (kvcache-ai/Mooncake v0.3.0 … main 3b5a5941)",
    failing:
      "`No HCA detected and neither {NVLink|MNNVL} nor TCP transport is compiled in` (transfer_engine_impl.cpp TransferEngineImpl::init, `return -1`), or the transport's own install failure (`Failed to install RDMA transport`)",
  },
  {
    id: "nixlAgent.plugin_dlopen_failed",
    library: "NIXL 0.2.0 … 0.7.0 (from 0.7.1 printed at INFO)",
    printed: "error (absl `E`, `NIXL_ERROR`)",
    file: "nixl_plugin_manager.cpp",
    message: /^Failed to load plugin from \S+: .+$/,
    format: "Failed to load plugin from {plugin_path}: {dlerror()}",
    fallback: "one plugin in the plugin directory could not be opened (a library it needs is missing); the agent goes on with the plugins that load",
    source:
      "src/core/nixl_plugin_manager.cpp nixlPluginManager::loadPluginFromPath (`return nullptr;`), called by loadPlugin for each directory in turn and by discoverPluginsFromDir for each `libplugin_*.so` at start-up, which goes on to the next file (ai-dynamo/nixl 0.2.0 … 0.7.0, `git grep` per tag)",
    failing:
      "`createBackend: unsupported backend '{type}'` (nixl_agent.cpp nixlAgent::createBackend, `return NIXL_ERR_NOT_FOUND`: the backend the program asked for is the one that did not load)",
  },
  {
    id: "nixlAgent.plugin_not_loaded",
    library: "NIXL 0.2.0 … 0.7.0",
    printed: "error (absl `E`, `NIXL_ERROR`)",
    file: "nixl_plugin_manager.cpp",
    message: /^Failed to load plugin '[^']+' from any directory$/,
    format: "Failed to load plugin '{plugin_name}' from any directory",
    fallback: "a discovered plugin did not load from any plugin directory; the agent goes on with the plugins that load",
    source:
      "src/core/nixl_plugin_manager.cpp nixlPluginManager::loadPlugin (`return nullptr;`); discoverPluginsFromDir, which calls it for every plugin file at start-up, goes on to the next (ai-dynamo/nixl 0.2.0 … 0.7.0)",
    failing: "`createBackend: unsupported backend '{type}'` (nixl_agent.cpp nixlAgent::createBackend, `return NIXL_ERR_NOT_FOUND`)",
  },
  {
    id: "triton.schedule_before_operands",
    library: "Triton ≤ 3.1 (its software pipeliner, compiling any kernel: SGLang's and vLLM's Triton attention)",
    printed: "error (an MLIR diagnostic, `loc(…): error: …`; its place is the kernel's Python source, so it is read by its message)",
    file: "PipelineExpander.cpp",
    message: /^loc\(.+\): error: operation scheduled before its operands$/,
    format: "loc(\"{kernel source}\":{line}:{column}): error: operation scheduled before its operands",
    fallback: "the software pipeliner found no valid schedule for one loop of the kernel and leaves that loop as it was, not pipelined; the kernel compiles and runs",
    source:
      "lib/Dialect/TritonGPU/Transforms/Pipeliner/PipelineExpander.cpp LoopPipelinerInternal::verifySchedule: `consumer->emitError(\"operation scheduled before its operands\"); return false;`, so initializeLoopInfo and pipelineForLoop fail, and SoftwarePipeliner.cpp pipelineLoop goes on with the loop unchanged (`if (succeeded(newForOp)) …`); Triton 3.2 prints the same check as a remark (`PERF_WARNING`, 004d4228). SGLang's triton_ops/decode_attention.py logged at import `The following error message 'operation scheduled before its operands' can be ignored.` (`# TODO: Remove this when triton>=3.2.0. This issue will not affect performance and accuracy.`; an index copy in a fork, cjmcv/sglang; vLLM's copy prints it when `triton.__version__ < 3.2.0`) (triton-lang/triton, index copies)",
    failing: "`RuntimeError: PassManager::run failed` (a compiler pass that fails ends the kernel's compilation)",
  },
  {
    id: "sglang.nested_top_logprobs",
    library: "SGLang",
    printed: "error (`logger.error`: SGLang's prefix prints no level, its heads table gives the call's)",
    file: "tokenizer_manager.py",
    message: /^Falling back to nested input top logprobs for rid=\S*: .+$/,
    format: "Falling back to nested input top logprobs for rid={rid}: {e}",
    fallback: "the request's input top logprobs could not be packed into the flat fields; they are returned nested instead, and the batch's other requests go on",
    source:
      "python/sglang/srt/managers/tokenizer_manager.py TokenizerManager.add_logprob_to_meta_info: `except ValueError as e:` sets the flat fields to None and logs this (`# A raise here would disrupt unrelated requests in the shared batch-output loop; degrade to nested instead.`), then builds the nested lists (index copy, the heads table's 001067ff)",
    failing: "`TokenizerManager hit an exception: {traceback}` (the same file's print_exception_wrapper, which then kills the server)",
  },
  {
    id: "sglang.request_error",
    library: "SGLang",
    printed: "error (`logger.error`: SGLang's prefix prints no level, its heads table gives the call's)",
    file: "http_server.py",
    message: /^\[http_server\] Error: .+$/,
    format: "[http_server] Error: {e}",
    fallback: "the request was refused (a ValueError of its own: an over-long input, a bad parameter); its client gets the error, the server goes on",
    source:
      "python/sglang/srt/entrypoints/http_server.py generate_request: `except ValueError as e:` logs this, then answers that request with the error (a streamed `{\"error\": …}` and `[DONE]`, else an error response) (0025436e, index copies)",
    failing: "`Scheduler hit an exception: {traceback}` (the scheduler's own failure, which ends the server)",
  },
  {
    id: "sglang.output_after_abort",
    library: "SGLang",
    printed: "error (`logger.error`: SGLang's prefix prints no level, its heads table gives the call's)",
    file: "tokenizer_manager.py",
    message: /^Received output for rid=\S+ but the state was deleted in TokenizerManager\.$/,
    format: "Received output for rid={rid} but the state was deleted in TokenizerManager.",
    fallback: "an output arrived for a request the tokenizer manager no longer holds (aborted, or its client left); the output is dropped and the loop goes on with the batch's other requests. Many of them mean requests that keep running after their clients left",
    source:
      "python/sglang/srt/managers/tokenizer_manager.py TokenizerManager._handle_batch_output: `if state is None:` logs this and `continue`s (001067ff, index copies)",
    failing: "`TokenizerManager hit an exception: {traceback}` (the same file's print_exception_wrapper, which then kills the server)",
  },
  {
    id: "grpc.shutdown_wait_timed_out",
    library: "gRPC core 1.68+ (any process that loaded grpcio: Ray, OpenTelemetry's OTLP exporter, an etcd client)",
    printed: "error (absl `E`, with absl's `E0000 00:00:{unix time}` before absl::InitializeLog)",
    file: "init.cc",
    message: /^grpc_wait_for_shutdown_with_timeout\(\) timed out\.$/,
    format: "grpc_wait_for_shutdown_with_timeout() timed out.",
    fallback: "printed while the process exits: the exit handler that cleans up OpenSSL waited for gRPC's own shutdown, gave up after its grace period (2 s), cleaned up and let the process exit as it was exiting",
    source:
      "src/core/lib/surface/init.cc grpc_wait_for_shutdown_with_timeout: `LOG(ERROR) << \"grpc_wait_for_shutdown_with_timeout() timed out.\"; return false;` after a timed wait for gRPC's initializations to end; its caller is the OpenSSL cleanup registered at exit (grpc/grpc#37768), whose grace period GRPC_OPENSSL_CLEANUP_TIMEOUT sets (#39297) (grpc/grpc, index copies)",
    failing: "`failed to connect to all addresses; last error: UNAVAILABLE: …` (a call that could not reach its server: the caller gets an error status)",
  },
  {
    id: "pip.conflicts_after_install",
    library: "pip 20.3+ (any `pip install` in a set-up or CI log)",
    printed: "critical (pip's `ERROR: ` prefix for error and critical)",
    file: "install.py",
    message:
      /^(?:ERROR: )?pip's (?:dependency resolver does not currently take into account all the packages that are installed|legacy dependency resolver does not consider dependency conflicts when selecting packages)\. This behaviour is the source of the following dependency conflicts\.$/,
    format: "ERROR: pip's dependency resolver does not currently take into account all the packages that are installed. This behaviour is the source of the following dependency conflicts.",
    fallback:
      "printed after the packages were installed: pip lists, one line each (`{package} {version} requires {requirement}, but you have {dep} {version} which is incompatible.`), the installed packages whose own requirements the new set no longer meets, then reports `Successfully installed …` and exits 0. A conflict can still break the program that imports them, which then fails on its own lines",
    source:
      "src/pip/_internal/commands/install.py InstallCommand._warn_about_conflicts: `logger.critical(\"\\n\".join(parts))`, called from run() after the install and before `Successfully installed`, which returns SUCCESS; src/pip/_internal/utils/logging.py IndentingFormatter.get_message_start gives `ERROR: ` to error and critical records (pypa/pip, index copies)",
    failing: "`ERROR: Could not find a version that satisfies the requirement {req}` / `ERROR: No matching distribution found for {req}` (the resolver gives up and nothing is installed)",
  },
  {
    id: "pip.legacy_conflict",
    library: "pip up to 20.2 (its legacy resolver)",
    printed: "critical (pip's `ERROR: ` prefix)",
    file: "install.py",
    message: /^(?:ERROR: )?\S+ \S+ (?:requires \S+, which is not installed|has requirement .+, but you'll have \S+ \S+ which is incompatible)\.$/,
    format: "ERROR: {package} {version} has requirement {requirement}, but you'll have {dep} {version} which is incompatible.",
    fallback: "printed after the packages were installed, one line per conflict (a missing one: `{package} {version} requires {requirement}, which is not installed.`): the install went through and pip exits 0",
    source:
      "src/pip/_internal/commands/install.py InstallCommand._warn_about_conflicts (pip 20.2 and before): one `logger.critical` per missing or conflicting requirement after the install (pypa/pip, index copies)",
    failing: "`ERROR: No matching distribution found for {req}` (nothing is installed)",
  },
  {
    id: "glibc.preload_ignored",
    library: "glibc's dynamic loader (ld.so; any program started with LD_PRELOAD, e.g. an image that preloads jemalloc or tcmalloc)",
    printed: "error (`ERROR: ld.so: `, on stderr before the program's own code runs)",
    file: "rtld.c",
    message: /^ERROR: ld\.so: object '.+' from .+ cannot be preloaded \(.+\): ignored\.$/,
    format: "ERROR: ld.so: object '{file}' from {LD_PRELOAD|/etc/ld.so.preload} cannot be preloaded ({reason}): ignored.",
    fallback: "the library named for preloading could not be loaded; the program starts without it (the allocator it would have replaced is the C library's)",
    source: "elf/rtld.c do_preload: `_dl_error_printf (\"ERROR: ld.so: object '%s' from %s cannot be preloaded (%s): ignored.\\n\", …)`, then it returns 0 and the loader goes on with the next object (bminor/glibc, index copies)",
    failing: "`{program}: error while loading shared libraries: {lib}: cannot open shared object file: No such file or directory` (a library the program needs: it does not start)",
  },
  xlaFactoryPrint("cuDNN", "cuda_dnn.cc"),
  xlaFactoryPrint("cuFFT", "cuda_fft.cc"),
  xlaFactoryPrint("cuBLAS", "cuda_blas.cc"),
];

/** The base name of a prefix's place (`TCPStore.cpp:277`, `../torch_npu/…/X.cpp:3009` → `X.cpp`). */
function fileOf(place: string): string {
  return place.replace(/:\d+$/, "").replace(/^.*\//, "");
}

/** The row whose print the message is, from the file the prefix names (any file where the paste cut the place); else undefined. */
export function fallbackPrintOf(message: string, place: string | undefined): FallbackPrint | undefined {
  const file = place === undefined ? undefined : fileOf(place);
  return FALLBACK_PRINTS.find((p) => (file === undefined || p.file === file) && p.message.test(message));
}
