// Generates a large PD incident for the ingest benchmark, in the real formats:
// one SGLang log per TP rank on a prefill host (p0) and a decode host (d0)
// (SGLANG_LOG_MS prefix, batch lines on TP0, NIXL debug lines with notif
// tags, bootstrap and metadata lines, WaitingForInput timeouts with their
// aborts), plus a probe JSONL per host (kv.meta/kv.post/kv.notify/kernel.read,
// collectives). The decode host's clock runs SKEW_US ahead. Rooms are 19-digit
// bootstrap_rooms. Written streaming: memory does not grow with the size.
// With `realWorld` (the default) the input is shaped like the pod logs people
// attach to tickets: the decode host's logs inside kubelet's CRI wrapper, and
// about 1% each of glog lines (NIXL's absl lines) and undated lines (NCCL INFO,
// Python warnings) among the prefill host's SGLang lines.

import { closeSync, existsSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { uniformStream } from "../fixtures/generator/prng.js";

export const SKEW_US = 25_000;
const TP = 8;
const CHUNKS = 4;
const T0_US = Date.UTC(2026, 7, 20, 10, 0, 0) * 1000;

class BufferedFile {
  private readonly fd: number;
  private buf = "";
  lines = 0;
  bytes = 0;
  /** Microseconds of the last line written, for a CRI wrapper's stamp. */
  lastUs = T0_US;

  /** `cri`: each line inside kubelet's `<RFC3339Nano> stderr F ` wrapper. */
  constructor(
    path: string,
    private readonly cri = false,
  ) {
    this.fd = openSync(path, "w");
  }

  write(line: string): void {
    this.buf += this.cri ? `${criStamp(this.lastUs)} stderr F ${line}\n` : line + "\n";
    this.lines++;
    if (this.buf.length > 1 << 20) this.flush();
  }

  flush(): void {
    this.bytes += writeSync(this.fd, this.buf);
    this.buf = "";
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

/** A file of the layout that one input does not have: its lines are not written. */
class Unwritten extends BufferedFile {
  constructor() {
    super("/dev/null");
  }

  override write(): void {}
}

/** `[YYYY-MM-DD HH:MM:SS.mmm` for epoch microseconds, caching the date-second part. */
class Stamp {
  private second = -1;
  private text = "";

  of(us: number): string {
    const s = Math.floor(us / 1_000_000);
    if (s !== this.second) {
      this.second = s;
      const iso = new Date(s * 1000).toISOString();
      this.text = `[${iso.slice(0, 10)} ${iso.slice(11, 19)}.`;
    }
    return this.text + String(Math.floor((us % 1_000_000) / 1000)).padStart(3, "0");
  }
}

let criSecond = -1;
let criText = "";

/** kubelet's `2026-08-20T10:00:00.123456789Z` for epoch microseconds. */
function criStamp(us: number): string {
  const s = Math.floor(us / 1_000_000);
  if (s !== criSecond) {
    criSecond = s;
    criText = new Date(s * 1000).toISOString().slice(0, 19);
  }
  return `${criText}.${String(us % 1_000_000).padStart(6, "0")}123Z`;
}

/** glog/absl `I0820 10:00:01.123456` for epoch microseconds. */
function glogStamp(us: number): string {
  const iso = new Date(Math.floor(us / 1000)).toISOString();
  return `${iso.slice(5, 7)}${iso.slice(8, 10)} ${iso.slice(11, 19)}.${String(us % 1_000_000).padStart(6, "0")}`;
}

function secondsFloat(us: number): string {
  return `${Math.floor(us / 1_000_000)}.${String(us % 1_000_000).padStart(6, "0")}`;
}

export interface GeneratedIncident {
  dir: string;
  lines: number;
  bytes: number;
}

/**
 * Writes an incident of at least `targetLines` lines under `dir`. With
 * `oneFile`, only the prefill host's log, all its TP ranks in one file
 * (`p0/prefill.log`, as a pod's stdout holds them).
 */
export function generateIncident(dir: string, targetLines: number, realWorld = true, oneFile = false): GeneratedIncident {
  mkdirSync(join(dir, "p0"), { recursive: true });
  mkdirSync(join(dir, "d0"), { recursive: true });
  const shared = oneFile ? new BufferedFile(join(dir, "p0", "prefill.log")) : null;
  const file = (path: string, cri = false): BufferedFile => (oneFile ? new Unwritten() : new BufferedFile(join(dir, path), cri));
  const pLogs = Array.from({ length: TP }, (_, r) => shared ?? new BufferedFile(join(dir, "p0", `prefill-tp${r}.log`)));
  const dLogs = Array.from({ length: TP }, (_, r) => file(join("d0", `decode-tp${r}.log`), realWorld));
  const pProbe = file(join("p0", "probe.jsonl"));
  const dProbe = file(join("d0", "probe.jsonl"));
  const all = shared !== null ? [shared] : [...pLogs, ...dLogs, pProbe, dProbe];
  const unwritten = shared !== null ? [...dLogs, pProbe, dProbe] : [];
  const rnd = uniformStream(20260820);
  const pStamp = new Stamp();
  const dStamp = new Stamp();
  const total = (): number => all.reduce((n, f) => n + f.lines, 0);
  let t = T0_US;
  let iter = 0;
  for (let req = 0; total() < targetLines; req++) {
    const room = (BigInt(Math.floor(rnd() * 2 ** 31)) * 4294967296n + BigInt(Math.floor(rnd() * 2 ** 32))).toString();
    const rid = `${(req * 2654435761) >>> 0}`.padStart(10, "0") + "c0ffee";
    const d = (us: number): number => us + SKEW_US;
    const pages = 1024 + ((req * 64) % 60000);
    t += 300 + Math.floor(rnd() * 400);
    for (const f of dLogs) f.lastUs = d(t);
    for (let r = 0; r < TP; r++) {
      dLogs[r]!.write(`${dStamp.of(d(t))} DP0 TP${r}] Sending to prefill server with bootstrap room ${room} is_dummy=False`);
    }
    if (realWorld && req % 12 === 0) {
      // About 1% of the prefill lines each: NIXL's absl lines, and lines with no time (NCCL, Python warnings).
      for (let r = 0; r < TP; r++) {
        const f = pLogs[r]!;
        f.write(`W${glogStamp(t)} ${4521 + r} nixl_agent.cpp:1238] getXferStatus: backend 'UCX' returned error status NIXL_IN_PROG`);
        f.write(
          req % 24 === 0
            ? `gpu-p0:${4521 + r}:${4800 + r} [${r}] NCCL INFO Channel 02/0 : ${r}[${r}] -> ${(r + 1) % TP}[${(r + 1) % TP}] via P2P/IPC/read`
            : "/usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py:61: FutureWarning: The pynvml package is deprecated.",
        );
      }
    }
    dProbe.write(`{"ts": ${secondsFloat(d(t))}, "host": "d0", "role": "decode", "tp": 0, "ev": "kv.meta", "room": ${room}, "pages": [[${pages}, ${pages + 64}]], "dst": "p0"}`);
    const got = t + 150 + Math.floor(rnd() * 100);
    for (let r = 0; r < TP; r++) {
      pLogs[r]!.write(`${pStamp.of(got)} TP${r}] got info room=${room} agent_name='d0-tp${r}' required_dst_info_num=1`);
      pLogs[r]!.write(`${pStamp.of(got + 5)} TP${r}] room=${room} is bootstrapped`);
    }
    const timedOut = rnd() < 0.01;
    for (let c = 0; c < CHUNKS; c++) {
      const post = got + 200 + c * 120;
      const last = c === CHUNKS - 1 ? 1 : 0;
      pProbe.write(`{"ts": ${secondsFloat(post)}, "host": "p0", "role": "prefill", "tp": 0, "ev": "kv.post", "room": ${room}, "chunk": ${c}, "last": ${last ? "true" : "false"}, "pages": [[${pages + c * 16}, ${pages + c * 16 + 16}]], "bytes": 270336, "queue": ${c % 4}}`);
      for (let r = 0; r < TP; r++) {
        pLogs[r]!.write(`${pStamp.of(post + 3)} TP${r}] sending kvcache to d0-tp${r} with notif ${room}_kv_${c}_${last}_${r}`);
      }
      if (!timedOut) {
        dProbe.write(`{"ts": ${secondsFloat(d(post + 60 + Math.floor(rnd() * 40)))}, "host": "d0", "role": "decode", "tp": 0, "ev": "kv.notify", "room": ${room}, "tag": "${room}_kv_${c}_${last}_0"}`);
      }
    }
    for (let r = 0; r < TP; r++) pLogs[r]!.write(`${pStamp.of(got + 700)} TP${r}] sending kvcache to d0-tp${r} with notif ${room}_aux`);
    if (timedOut) {
      const at = d(got + 800);
      for (let r = 0; r < TP; r++) {
        dLogs[r]!.write(
          `${dStamp.of(at)} DP0 TP${r}] Decode transfer failed for request rank=${r} decode_req.req.rid='${rid}' decode_req.req.bootstrap_room=${room} with exception KVTransferError(bootstrap_room=${room}): Request ${room} timed out after 300.0s in KVPoll.WaitingForInput`,
        );
        dLogs[r]!.write(`${dStamp.of(at + 1000)} DP0 TP${r}] Sent abort notification for room ${room} to 10.0.0.1:1790${r}`);
        pLogs[r]!.write(`${pStamp.of(got + 1100 + r)} TP${r}] Received abort notification for room ${room}, marked as Failed`);
      }
    } else {
      dProbe.write(`{"ts": ${secondsFloat(d(got + 900))}, "host": "d0", "role": "decode", "tp": 0, "ev": "kernel.read", "room": ${room}, "buffer": "index_k", "layer": ${req % 61}, "pages": [[${pages}, ${pages + 64}]], "consumer": -1}`);
    }
    iter++;
    pLogs[0]!.write(
      `${pStamp.of(got + 720)} TP0] Prefill batch, #new-seq: 1, #new-token: ${4096 + (req % 4096)}, #cached-token: ${req % 2048}, token usage: 0.${21 + (req % 50)}, #running-req: 1, #queue-req: ${req % 9}, #pending-token: 0, #bootstrap-req: ${req % 7}, #inflight-req: ${12 + (req % 40)}, #optimistic-req: 0, cuda graph: False, input throughput (token/s): ${(48211.37 + req).toFixed(2)}`,
    );
    if (iter % 2 === 0) {
      dLogs[0]!.write(
        `${dStamp.of(d(got + 950))} DP0 TP0] Decode batch, #running-req: ${40 + (req % 40)}, #token: ${181234 + req}, token usage: 0.43, pre-allocated usage: 0.06, #prealloc-req: 3, #transfer-req: ${req % 60}, #retracted-req: 0, cuda graph: True, gen throughput (token/s): ${(3712.55 + (req % 100)).toFixed(2)}, #queue-req: 0`,
      );
    }
    for (let r = 0; r < 2; r++) {
      const probe = r === 0 ? pProbe : dProbe;
      const host = r === 0 ? "p0" : "d0";
      const at = (us: number): number => (r === 0 ? us : d(us));
      probe.write(`{"ts": ${secondsFloat(at(got + 710))}, "host": "${host}", "role": "${r === 0 ? "prefill" : "decode"}", "tp": 0, "ev": "coll.enter", "group": "tp", "op": "all_reduce", "seq": ${iter}, "site": "poll_and_all_reduce", "digest": "a1"}`);
      probe.write(`{"ts": ${secondsFloat(at(got + 716))}, "host": "${host}", "role": "${r === 0 ? "prefill" : "decode"}", "tp": 0, "ev": "coll.exit", "group": "tp", "op": "all_reduce", "seq": ${iter}}`);
    }
  }
  for (const f of [...all, ...unwritten]) f.close();
  return { dir, lines: total(), bytes: all.reduce((n, f) => n + f.bytes, 0) };
}

/**
 * The benchmarks' generated input under bench/out/ (made on first use, then
 * reused): 18 sources shaped like pod logs, or (`oneFile`) the same lines in
 * one file, a pod's stdout with every TP rank.
 */
export function benchInput(lines: number, realWorld: boolean, oneFile: boolean): string {
  const name = `incident-${lines}${realWorld ? "-pods" : ""}${oneFile ? "-one-file" : ""}`;
  const dir = fileURLToPath(new URL(`../../bench/out/${name}`, import.meta.url));
  if (!existsSync(join(dir, "p0"))) {
    const t = performance.now();
    const g = generateIncident(dir, lines, realWorld, oneFile);
    console.log(`generated ${g.lines.toLocaleString("en-US")} lines, ${(g.bytes / 1e6).toFixed(0)} MB in ${((performance.now() - t) / 1000).toFixed(1)} s → ${dir}`);
  }
  return dir;
}
