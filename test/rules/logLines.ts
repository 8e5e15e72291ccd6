// Real-format SGLang log lines for rule tests (docs/protocol.md
// §2.1, §2.2, §3.4, §3.5), stamped at an offset from a fixed start.

const START_MS = Date.parse("2026-08-20T10:00:00Z");

/** `[YYYY-MM-DD HH:MM:SS TPn]` at `sec` seconds after 10:00:00 UTC. */
export function prefix(sec: number, tags = ""): string {
  const d = new Date(START_MS + sec * 1000).toISOString();
  return `[${d.slice(0, 10)} ${d.slice(11, 19)}${tags ? ` ${tags}` : ""}]`;
}

export function decodeBatch(sec: number, transferReq: number, running = 64, tp = 0): string {
  return (
    `${prefix(sec, `DP0 TP${tp}`)} Decode batch, #running-req: ${running}, #token: 181234, token usage: 0.43, pre-allocated usage: 0.06, ` +
    `#prealloc-req: 3, #transfer-req: ${transferReq}, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 3712.55, #queue-req: 0`
  );
}

export function prefillBatch(sec: number, inflightReq: number, tp = 0): string {
  return (
    `${prefix(sec, `DP0 TP${tp}`)} Prefill batch, #new-seq: 3, #new-token: 12288, #cached-token: 2048, token usage: 0.21, #running-req: 3, ` +
    `#queue-req: 5, #pending-token: 0, #bootstrap-req: 7, #inflight-req: ${inflightReq}, #optimistic-req: 0, cuda graph: False, input throughput (token/s): 48211.37`
  );
}

export function decodeTimeout(sec: number, tp: number, rid: string, room: string, afterS = 300): string {
  return (
    `${prefix(sec, `DP0 TP${tp}`)} Decode transfer failed for request rank=${tp} decode_req.req.rid='${rid}' decode_req.req.bootstrap_room=${room} ` +
    `with exception KVTransferError(bootstrap_room=${room}): Request ${room} timed out after ${afterS.toFixed(1)}s in KVPoll.WaitingForInput`
  );
}

export function sentMetadata(sec: number, tp: number, room: string): string {
  return `${prefix(sec, `DP0 TP${tp}`)} Sending to prefill server with bootstrap room ${room} is_dummy=False`;
}

export function abortSent(sec: number, tp: number, room: string, to = "10.0.0.1:17000"): string {
  return `${prefix(sec, `DP0 TP${tp}`)} Sent abort notification for room ${room} to ${to}`;
}

export function gotInfo(sec: number, tp: number, room: string): string {
  return `${prefix(sec, `DP0 TP${tp}`)} got info room=${room} agent_name='decode_tp${tp}' required_dst_info_num=1`;
}

export function lines(...ls: (string | string[])[]): string {
  return ls.flat().join("\n") + "\n";
}
