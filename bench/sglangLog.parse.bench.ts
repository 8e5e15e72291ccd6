// Lines per second of the SGLang log parser alone (no I/O, no store), over a
// realistic mix of a debug-level PD log: batch lines, NIXL notif lines,
// bootstrap lines, failures with reasons, access lines, tracebacks, noise.
// Prints a figure; it is not a pass/fail test.

import type { ParsedEvent, ParseIssue } from "../domain/event.js";
import { sglangLog } from "../ingest/formats/sglangLog.js";

const LINES = Number(process.env.BENCH_LINES ?? 400_000);
const RUNS = 5;

function room(i: number): string {
  // 19-digit rooms, as SGLang's random 63-bit bootstrap_room prints.
  return String(8_000_000_000_000_000_000n + BigInt(i) * 7_919_000_003n);
}

function stamp(i: number): string {
  const ms = Date.UTC(2026, 7, 20, 10, 0, 0) + i * 3;
  const d = new Date(ms).toISOString();
  return `${d.slice(0, 10)} ${d.slice(11, 23)}`;
}

function makeLines(n: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) {
    const tp = i % 8;
    const p = `[${stamp(i)} DP0 TP${tp} EP${tp}]`;
    const r = room(i % 5000);
    const rid = `9f2c4c0e1b2a4f7d${(i % 65536).toString(16).padStart(4, "0")}`;
    switch (i % 20) {
      case 0:
        out.push(`${p} Decode batch, #running-req: ${i % 80}, #token: 181234, token usage: 0.43, pre-allocated usage: 0.06, #prealloc-req: 3, #transfer-req: 58, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 3712.55, #queue-req: 0`);
        break;
      case 1:
        out.push(`${p} Prefill batch, #new-seq: 3, #new-token: 12288, #cached-token: 2048, token usage: 0.21, #running-req: 3, #queue-req: 5, #pending-token: 0, #bootstrap-req: 7, #inflight-req: 12, #optimistic-req: 0, cuda graph: False, input throughput (token/s): 48211.37`);
        break;
      case 2:
      case 3:
      case 4:
      case 5:
      case 6:
        out.push(`${p} sending kvcache to 4f1e0c2a-decode-${tp} with notif ${r}_kv_${i % 7}_${i % 7 === 6 ? 1 : 0}_${tp}`);
        break;
      case 7:
        out.push(`${p} sending kvcache to 4f1e0c2a-decode-${tp} with notif ${r}_aux`);
        break;
      case 8:
        out.push(`${p} got info room=${r} agent_name='4f1e0c2a-decode-${tp}' required_dst_info_num=1`);
        break;
      case 9:
        out.push(`${p} room=${r} is bootstrapped`);
        break;
      case 10:
        out.push(`${p} Decode transfer failed for request rank=${tp} decode_req.req.rid='${rid}' decode_req.req.bootstrap_room=${r} with exception KVTransferError(bootstrap_room=${r}): Request ${r} timed out after 300.0s in KVPoll.WaitingForInput`);
        break;
      case 11:
        out.push(`${p} Received abort notification for room ${r}, marked as Failed`);
        break;
      case 12:
        out.push(`[${stamp(i)}] INFO:     127.0.0.1:${40000 + (i % 20000)} - "POST /generate HTTP/1.1" 200 OK`);
        break;
      case 13:
        out.push(`${p} Sent abort notification for room ${r} to 10.0.3.17:17003`);
        break;
      case 14:
        out.push(`${p} Abort transfer queue request. decode_req.req.rid='${rid}'`);
        break;
      case 15:
        out.push(`${p} Cache flushed successfully!`);
        break;
      case 16:
        out.push(`[${stamp(i)}] Receive: obj=GenerateReqInput(rid='${rid}', text='...', sampling_params={'max_new_tokens': 256})`);
        break;
      case 17:
        out.push(
          `${p} Unexpected transfer worker error for room ${r}`,
          "Traceback (most recent call last):",
          '  File "/sgl-workspace/sglang/python/sglang/srt/disaggregation/nixl/conn.py", line 1101, in transfer_worker',
          "    self._wait_xfer_handles(handles, room)",
          `RuntimeError: NIXL transfer encountered ERR room=${r}`,
        );
        break;
      case 18:
        out.push(`${p} Prefill transfer failed for request rank=${tp} req.rid='${rid}' req.bootstrap_room=${r} with exception KVTransferError(bootstrap_room=${r}): Aborted by decode-side abort notification.`);
        break;
      default:
        out.push(`${p} sending kvcache to 4f1e0c2a-decode-${tp} with notif ${r}_state_${tp}_0`);
    }
  }
  return out.slice(0, n);
}

function parseAll(lines: string[]): { events: number; issues: number } {
  const parser = sglangLog.createParser({ sourcePath: "bench.log", tzOffsetMinutes: 0, host: "prefill-0", role: "prefill" });
  let out: ParsedEvent[] = [];
  const issues: ParseIssue[] = [];
  let events = 0;
  for (let i = 0; i < lines.length; i++) {
    parser.line(lines[i], i + 1, out, issues);
    // The pipeline drains the sink in batches; keep it small as it would.
    if (out.length >= 1024) {
      events += out.length;
      out = [];
    }
  }
  parser.end(out, issues);
  return { events: events + out.length, issues: issues.length };
}

// As the pipeline sees them: slices of one decoded text, not freshly concatenated strings.
const lines = makeLines(LINES).join("\n").split("\n");
parseAll(lines); // warm-up
const rates: number[] = [];
let last = { events: 0, issues: 0 };
for (let run = 0; run < RUNS; run++) {
  const t0 = process.hrtime.bigint();
  last = parseAll(lines);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  rates.push(lines.length / seconds);
}
rates.sort((a, b) => a - b);
const median = rates[Math.floor(rates.length / 2)];
console.log(
  `sglangLog parse: ${lines.length} lines → ${last.events} events, ${last.issues} issues; ` +
    `median ${Math.round(median).toLocaleString("en-US")} lines/s (min ${Math.round(rates[0]).toLocaleString("en-US")}, max ${Math.round(rates[rates.length - 1]).toLocaleString("en-US")}) on one core`,
);
