// NVSHMEM's error prints (NVIDIA/nvshmem, v3.4.5 src/include/non_abi/nvshmemx_error.h
// and the bootstrap's and CUDA wrappers' copies in src/modules/bootstrap/common/bootstrap_util.h,
// src/include/internal/host_transport/cudawrap.h): no level and no time, the
// place the build gave `__FILE__`, then the macro's words, each part a separate
// `fprintf` to stderr (so several ranks' lines run together or split in a paste):
//   `{file}:{function}:{line}: {msg}`           NVSHMEMI_ERROR_PRINT, NVSHMEMI_ERROR_EXIT
//   `{file}:{line}: non-zero status: {n} {msg}`  NVSHMEMI_ERROR_JMP, _NZ_ERROR_JMP, _NE_ERROR_JMP
//   `{file}:{line}: NULL value {msg}`            NVSHMEMI_NULL_ERROR_JMP
//   `{file}:{line}: error status: {n} {msg}`     NVSHMEMI_EQ_ERROR_JMP
//   `{file}:{line}: {msg}`                       NVSHMEMI_CHECK_ERROR_JMP
//   `{file}:{line}: non-zero status: {n}: {strerror}, exiting... {msg}`  NVSHMEMI_NZ_EXIT (the process exits)
//   `{file}:{line} Cuda failure '{error}'`, `{file}:{line} -> {n} [Async thread]`  cudawrap.h
// Every one is printed on an error path. NVSHMEMI_WARN_PRINT's `WARN: {msg}` (stdout) is a warning, read as such.

export interface NvshmemHead {
  /** The file's base name and line, `ibgda.cpp:1889`. */
  source: string;
  /** `fatal` where the words say the process exits. */
  level: "error" | "fatal";
  msgStart: number;
}

const PLACE = /^(\S*\/)?([\w.+-]+\.(?:cpp|cu|cuh|cc|c|h|hpp))(?::\w+)?:(\d+)(?:: | (?=Cuda failure '|-> -?\d+ \[Async thread\]|Unable to allocate))/;
/** The macros' own words after the place: they name NVSHMEM whatever path the build gave. */
const MACRO_WORDS = /^(?:non-zero status: -?\d+|NULL value |error status: -?\d+|Cuda failure '|-> -?\d+ \[Async thread\])/;
/** NVSHMEM's source files (v3.4.5 `src/`), for a place whose path does not name NVSHMEM. */
const NVSHMEM_FILES =
  /^(?:ibgda|ibrc|ibdevx|libfabric|ucx|transport(?:_\w+)?|init(?:_device|_nvtx)?|bootstrap(?:_\w+)?|cudawrap|nvmlwrap|proxy|topo|mem(?:_heap|_transport)?|team(?:_internal\w*)?|util|sockets|p2p|cs|query_host|env_vars|collective_launch|cpu_coll|custom_malloc|shared_memory)\.(?:cpp|cu|c)$/;
const EXITING = /exiting ?\.\.\./;
/** The extensions of C, C++ and CUDA sources, which end the text before a line's first colon. */
const SOURCE_EXTENSIONS = new Set(["cpp", "cu", "cuh", "cc", "c", "h", "hpp"]);

/** A line NVSHMEM's error macros printed, or null: its path names NVSHMEM, or its words are the macros' after one of NVSHMEM's files. */
export function readNvshmemHead(line: string): NvshmemHead | null {
  const colon = line.indexOf(":");
  const dot = colon < 3 ? -1 : line.lastIndexOf(".", colon);
  if (dot < 0 || colon - dot > 4 || !SOURCE_EXTENSIONS.has(line.substring(dot + 1, colon))) return null;
  const m = PLACE.exec(line);
  if (m === null) return null;
  const msgStart = m[0].length;
  const path = m[1] ?? "";
  const named = /nvshmem/i.test(path);
  if (!named && !(NVSHMEM_FILES.test(m[2]!) && MACRO_WORDS.test(line.substring(msgStart)))) return null;
  return { source: `${m[2]}:${m[3]}`, level: EXITING.test(line) ? "fatal" : "error", msgStart };
}
