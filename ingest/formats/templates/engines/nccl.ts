// NCCL's own warnings (NVIDIA/nccl, printed with NCCL_DEBUG=WARN or INFO):
// the message after NCCL's `host:pid:tid [dev] file:line NCCL WARN ` prefix
// (src/debug.cc ncclDebugLog; read by ../../log/dialects/otherDialects.ts readNcclHead).
// Only the warnings NCCL prints on the way to returning an error are rows
// here, and the INFO line each caller prints as the error passes up; an NCCL
// WARN no row reads stays `nccl.warn`.

import type { ParsedEvent } from "../../../../domain/event.js";
import { LogKind } from "../../../../domain/kinds.js";
import { cap, type Groups, type LogTemplate, type TemplateComponent } from "../template.js";

/** ncclResult_t's errors (src/nccl.h.in): what a `-> N` chain line says the call returned. */
const NCCL_RESULTS: Readonly<Record<string, string>> = {
  "1": "ncclUnhandledCudaError",
  "2": "ncclSystemError",
  "3": "ncclInternalError",
  "4": "ncclInvalidArgument",
  "5": "ncclInvalidUsage",
  "6": "ncclRemoteError",
};

function errorReturn(ev: ParsedEvent, g: Groups): void {
  ev.attrs!.error = `an NCCL call returned ${NCCL_RESULTS[g.result!]} (${g.result})`;
}

/** `transport/net.cc:1302 -> 6`: a source place, then the result the call there returned. */
function errorReturnHead(line: string, at: number): boolean {
  const arrow = line.indexOf(" -> ", at);
  return arrow > at && line.charCodeAt(arrow - 1) >= 48 && line.charCodeAt(arrow - 1) <= 57;
}

const templates: LogTemplate[] = [
  {
    id: "nccl.ib_completion_error",
    kind: LogKind.error,
    checked: "✔",
    level: "WARN",
    format:
      "NET/IB : Got completion from peer {peer} with error {status}, opcode {opcode}, len {len}, vendor err {vendorErr}" +
      " — 2.10–2.19, with ` ({reqType})` and ` localGid {gid} remoteGid {gid}` (RoCE) after it from 2.18; 2.20–2.27 print" +
      " `with status={status} opcode={opcode} len={len} vendor err {vendorErr} ({reqType})`, `NET/IB: ` and a trailing" +
      " ` hca {hca}` from 2.23; 2.28+ `with status={statusName}({status}) opcode={opName}({opcode}) … vendor_err={vendorErr}`," +
      " and `NET/IB/GIN: ` for GIN's queue pairs. An InfiniBand work completion came back failed (`status` is the" +
      " `ibv_wc_status`: 12 retry count exceeded, 5 flushed, 4 remote access error); the call returns `ncclRemoteError`," +
      " which every caller passes up (the `transport/net.cc:1302 -> 6` INFO lines after it) until the collective fails",
    source:
      "src/transport/net_ib.cc ncclIbTest (`WARN(...); return ncclRemoteError;`), v2.10.3–v2.28.9; src/transport/net_ib/p2p.cc and" +
      " net_ib/gin.cc from v2.29 (NVIDIA/nccl, `git grep` per tag)",
    versions: "2.10+",
    head: "NET/IB",
    pattern: /NET\/IB(?:\/GIN)? ?: Got completion from peer (?<peer>\S+) with (?:error |status=(?:\w+\()?)(?<status>\d+)(?:.*?vendor[ _]err[ =](?<vendorErr>\d+))?/ys,
    attrs: { error: "NCCL InfiniBand work completion failed", peer: cap("peer"), wcStatus: cap("status", "number"), vendorErr: cap("vendorErr", "number"), failureClass: "nccl" },
    samples: [
      // sgl-project/sglang#4857: the user replaced host, pid and tid with placeholders; the paste's lines end in two spaces.
      "[Node-A]:[PID]:[Thread] [0] NCCL WARN NET/IB : Got completion from peer [PRIVATE_IP] with error 12, opcode 0, len 0, vendor err 129 (Recv)  ",
      // NCCL 2.25's form, from a public cluster-troubleshooting note (index copy).
      "atl1g3r4u9gpu:146600:146782 [5] transport/net_ib.cc:2244 NCCL WARN NET/IB: Got completion from peer 10.46.70.21<50854> with status=5 opcode=31245 len=0 vendor err 249 (Recv) localGid fe80::9e63:c0ff:feab:b8da remoteGidsfe80::9e63:c0ff:feab:b9ca hca mlx5_9",
    ],
  },
  {
    id: "nccl.cuda_failure",
    kind: LogKind.error,
    checked: "✔",
    level: "WARN",
    format:
      "Cuda failure {code} '{reason}' (a CUDA driver call; `code` the CUresult) or Cuda failure '{reason}' (a CUDA runtime call) — a CUDA" +
      " call NCCL made failed; the call returns `ncclUnhandledCudaError`, which every caller passes up (the `-> 1` INFO lines after it)",
    source:
      "src/include/cudawrap.h CUCHECK, CUCHECKGOTO (`WARN(\"Cuda failure %d '%s'\", err, errStr); return ncclUnhandledCudaError;`) and" +
      " src/include/checks.h CUDACHECK, CUDACHECKGOTO (`WARN(\"Cuda failure '%s'\", cudaGetErrorString(err))`) (NVIDIA/nccl, index copies)",
    head: "Cuda failure ",
    pattern: /Cuda failure (?:(?<code>\d+) )?'(?<reason>[^']*)'/y,
    attrs: { error: "a CUDA call NCCL made failed", cudaError: cap("code", "number"), reason: cap("reason"), failureClass: "nccl" },
    samples: [
      // NVIDIA/nccl#1235 (batch 23's working half): a runtime call's failure, at communicator init.
      "ng30903:3063028:3066152 [3] include/alloc.h:178 NCCL WARN Cuda failure 'out of memory'",
      // NVIDIA/nccl#1283 (batch 29's working half): a driver call's, as NCCL printed it (the paste has a Ray tag and a time before it).
      "n176-080-198:2657296:2658232 [0] include/alloc.h:102 NCCL WARN Cuda failure 1 'invalid argument'",
    ],
  },
  {
    id: "nccl.error_return",
    kind: LogKind.error,
    checked: "✔",
    level: "INFO",
    format:
      "{file}:{line} -> {result}[ ({strerror})][ [Async thread]] — a call returned an error (ncclResult_t 1–6: unhandled CUDA error, system," +
      " internal, invalid argument, invalid usage, remote) and its caller passes it up; one line per frame, the deepest first. Printed at INFO," +
      " and only for an error: ncclSuccess prints none, and ncclInProgress (7) none since 2.14",
    source:
      "src/include/checks.h NCCLCHECK, NCCLCHECKGOTO, SYSCHECKGOTO, EQCHECK, NEQCHECK: `INFO(NCCL_ALL,\"%s:%d -> %d\", __FILE__, __LINE__, res)` when res is" +
      " not ncclSuccess (nor ncclInProgress), ` (%s)` with strerror(errno) after a system call; group.cc adds ` [Async thread]` (NVIDIA/nccl, index copies)",
    head: errorReturnHead,
    firstChars: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_",
    pattern: /(?<place>[\w./-]+\.(?:cc|cu|cpp|c|h):\d+) -> (?<result>[1-6])(?: \((?<why>[^)]*)\))?(?: \[Async thread\])?\s*$/y,
    attrs: { place: cap("place"), ncclResult: cap("result", "number"), reason: cap("why"), failureClass: "nccl" },
    refine: errorReturn,
    samples: [
      // sgl-project/sglang#4857 (the working half of test/corpus): the user's placeholders, the paste's two trailing spaces.
      "[Node-A]:[PID]:[Thread] [0] NCCL INFO transport/net.cc:1302 -> 6  ",
      // NVIDIA/nccl#1235 (batch 23's working half): a socket's failure passed up at communicator init.
      "ng30903:3063025:3066048 [0] NCCL INFO misc/socket.cc:749 -> 6",
      "ng30903:3063025:3066048 [0] NCCL INFO group.cc:65 -> 3 [Async thread]",
    ],
  },
];

export const NCCL: TemplateComponent = {
  name: "nccl",
  dialect: "engine",
  title: "NCCL",
  intro:
    "`NVIDIA/nccl`: the warnings NCCL prints (NCCL_DEBUG) just before a call returns an error, and the `file:line -> N` line each caller prints as the error passes up, read after NCCL's prefix. The error fails the communicator's operation whatever level NCCL printed it at. Event: `log.error` (`error`, the fields named, `failureClass: nccl`).",
  templates,
};
