// NCCL's own warnings (NVIDIA/nccl, printed with NCCL_DEBUG=WARN or INFO):
// the message after NCCL's `host:pid:tid [dev] file:line NCCL WARN ` prefix
// (src/debug.cc ncclDebugLog; read by ../../log/dialects/otherDialects.ts readNcclHead).
// Only the warnings NCCL prints on the way to returning an error are rows
// here; an NCCL WARN no row reads stays `nccl.warn`.

import { LogKind } from "../../../../domain/kinds.js";
import { cap, type LogTemplate, type TemplateComponent } from "../template.js";

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
];

export const NCCL: TemplateComponent = {
  name: "nccl",
  dialect: "engine",
  title: "NCCL",
  intro:
    "`NVIDIA/nccl`: the warnings NCCL prints (NCCL_DEBUG) just before a call returns an error, read after NCCL's prefix. The error fails the communicator's operation whatever level NCCL printed it at. Event: `log.error` (`error`, the fields named, `failureClass: nccl`).",
  templates,
};
