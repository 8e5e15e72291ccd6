// The text after ` with exception ` on a PD failure line
// (docs/log-templates.md "Failure reasons"; docs/protocol.md §3.5).
// `str(KVTransferError)` is `KVTransferError(bootstrap_room={room}): {reason}`;
// the NIXL sender may instead re-raise the raw worker exception, printed as-is
// (a NIXL binding error prints its status name: `NIXL_ERR_REMOTE_DISCONNECT`).

export type ReasonKind =
  | "timeout"
  | "abort"
  | "peer_loss"
  | "bootstrap"
  | "mooncake_transfer"
  | "propagated"
  | "nixl_error"
  | "other";

export interface FailureReason {
  reasonKind: ReasonKind;
  /** The reason text, without the `KVTransferError(...)` wrapper. */
  reason: string;
  /** The room inside `KVTransferError(bootstrap_room=...)`, as its decimal string. */
  errorRoom?: string;
  /** `Bootstrapping` (prefill sender) or `WaitingForInput` (decode receiver), for timeouts. */
  timeoutState?: string;
  timeoutS?: number;
  /** Who aborted: `AbortReq` or `decode_notification`. */
  abortBy?: string;
  bootstrapAddr?: string;
  /** Mooncake: the dead peer session `host:rpc_port`, or the `host:port` a chunk was sent to. */
  peer?: string;
}

const WRAPPER = /^KVTransferError\(bootstrap_room=(\d+|None)\): ?/s;
const TIMEOUT = /^Request (\d+) timed out after ([0-9.]+)s in KVPoll\.(\w+)/;
const LOST = /^Los(?:t|ing) connection with prefill instance \(bootstrap_addr: ([^)]*)\)/;
const ERR_ROOM = / room=(\d+)/;
const DOWN = /^Prefill server with bootstrap_addr: (\S+) is healthy before, but now it is down\./;
// mooncake/conn.py record_failure texts that name the peer.
const DEAD_SESSION = /^Decode instance could be dead, remote mooncake session (\S+) is not alive/i;
const SENT_TO = /^Failed to send .* to (\S+)$/;

// Reason prefixes by kind (§3.5 table; ≤ v0.5.11 NIXL's poll error for nixl_error).
const PREFIXES: ReadonlyArray<readonly [string, ReasonKind]> = [
  ["Could not fetch bootstrap info for:", "bootstrap"],
  ["Could not fetch prefill parallel info from bootstrap_addr:", "bootstrap"],
  ["send_metadata to prefill ", "bootstrap"],
  ["_register_kv_args to prefill ", "bootstrap"],
  ["follow_bootstrap_room conflict:", "bootstrap"],
  ["Failed to send kv chunk of ", "mooncake_transfer"],
  ["Failed to send state components of ", "mooncake_transfer"],
  ["Failed to send aux data of ", "mooncake_transfer"],
  ["Failed to get kvcache from prefill instance", "mooncake_transfer"],
  ["Failed due to an unknown reason from another rank", "propagated"],
  ["NIXL KVSender Exception", "propagated"],
  ["NIXL KVReceiver Exception", "propagated"],
  ["NIXL transfer encountered ERR", "nixl_error"],
  ["NIXL_ERR_", "nixl_error"],
  ["KVSender transfer encountered an error.", "nixl_error"],
];

export function decodeFailureReason(text: string): FailureReason {
  let reason = text;
  let errorRoom: string | undefined;
  const wrapped = WRAPPER.exec(text);
  if (wrapped) {
    reason = text.substring(wrapped[0].length);
    if (wrapped[1] !== "None") errorRoom = wrapped[1];
  }
  const out: FailureReason = { reasonKind: "other", reason };
  if (errorRoom !== undefined) out.errorRoom = errorRoom;
  classify(reason, out);
  return out;
}

function classify(reason: string, out: FailureReason): void {
  const timeout = TIMEOUT.exec(reason);
  if (timeout) {
    out.reasonKind = "timeout";
    out.timeoutS = Number(timeout[2]);
    out.timeoutState = timeout[3];
    return;
  }
  if (reason.startsWith("Aborted by AbortReq.")) {
    out.reasonKind = "abort";
    out.abortBy = "AbortReq";
    return;
  }
  if (reason.startsWith("Aborted by decode-side abort notification.")) {
    out.reasonKind = "abort";
    out.abortBy = "decode_notification";
    return;
  }
  const lost = LOST.exec(reason) ?? DOWN.exec(reason);
  if (lost) {
    out.reasonKind = "peer_loss";
    out.bootstrapAddr = lost[1];
    return;
  }
  const session = DEAD_SESSION.exec(reason);
  if (session) {
    out.reasonKind = "mooncake_transfer";
    out.peer = session[1];
    return;
  }
  for (const [prefix, kind] of PREFIXES) {
    if (reason.startsWith(prefix)) {
      out.reasonKind = kind;
      if (kind === "nixl_error" && out.errorRoom === undefined) {
        const room = ERR_ROOM.exec(reason);
        if (room) out.errorRoom = room[1];
      }
      const to = kind === "mooncake_transfer" ? SENT_TO.exec(reason) : null;
      if (to) out.peer = to[1];
      return;
    }
  }
  // [inference] A re-raised NIXL transport error (§3.2: nixlRemoteDisconnectError,
  // nixlBackendError, nixlCancelledError) is assumed to print with its class name first.
  if (reason.startsWith("nixl")) out.reasonKind = "nixl_error";
}
