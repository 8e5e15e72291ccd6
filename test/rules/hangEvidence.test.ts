// Evidence of a hang that no exception reports, judged by process-failure: a thread dump a user took of a server that
// stopped answering (py-spy's `dump`, ingest/formats/log/pyspyDump.ts), where a scheduler caught waiting in a
// collective or a transfer is that rank's failure at medium, with what one dump cannot say; and a scheduler that ran
// no batch with requests waiting while its server answered HTTP (analyzer/rules/logStalls.ts). Written by hand in
// py-spy's and SGLang's formats, the frames named after functions of PyTorch's and SGLang's sources; the bundle is
// test/bundles/pyspy-hang (README there). A hang's suspect is what the ranks wait in, not a crash
// (analyzer/rules/failureCauses.ts): the collective or the transfer, or, where no dump says, that it is not known. The
// traceback Python prints when an operator interrupts a process (KeyboardInterrupt) is read as such a dump.

import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { analyzeCli, analyzeLines as report, bundle, cleanUp, violated } from "./handBundles.js";
import type { AnalysisReport } from "../../analyzer/rules/finding.js";

after(cleanUp);

test("a user's py-spy dump of a scheduler caught in a collective is that rank's failure, medium, with what one dump cannot say; a dump of an idle scheduler is none", () => {
  const header = ["Process 48211: sglang::scheduler_TP3", "Python v3.10.12 (/usr/bin/python3.10)", "", 'Thread 48211 (idle): "MainThread"'];
  const r = report("pyspy-tp3.txt", [...header, "    all_reduce (torch/distributed/distributed_c10d.py:2501)", "    poll_and_all_reduce (sglang/srt/disaggregation/utils.py:84)"]);
  const [failure, ...others] = violated(r, "process-failure");
  assert.equal(others.length, 0);
  assert.equal(failure!.severity, "medium");
  assert.equal(failure!.title, "unknown/tp3 was caught waiting: py-spy's dump: MainThread (idle) in all_reduce (torch/distributed/distributed_c10d.py:2501), a collective");
  assert.match(failure!.explanation, /A dump is one instant: whether the rank stayed in that wait/);
  assert.match(failure!.falsify, /twice, a minute apart/);
  const [suspect, ...otherSuspects] = r.suspects;
  assert.equal(otherSuspects.length, 0);
  assert.deepEqual([suspect!.cause, suspect!.confidence, suspect!.findings], ["process-crash", 0.3, [failure!.id]]);
  assert.match(suspect!.summary, /^unknown\/tp3: no process died, yet the work stopped \(.*\): a hang, in a collective \(all_reduce\): the collective is suspected/);
  assert.equal(suspect!.falsify, failure!.falsify);
  const idle = report("pyspy-tp3.txt", [...header, "    recv_pyobj (zmq/sugar/socket.py:1034)", "    recv_requests (sglang/srt/managers/scheduler.py:1021)"]);
  assert.deepEqual(violated(idle, "process-failure"), []);
});

const INTERRUPTED = (frames: readonly string[]) => [
  "^CTraceback (most recent call last):",
  '  File "/usr/lib/python3.10/runpy.py", line 196, in _run_module_as_main',
  "    return _run_code(code, main_globals, None,",
  '  File "/usr/local/lib/python3.10/dist-packages/sglang/srt/managers/scheduler.py", line 1021, in event_loop_normal_disagg_decode',
  "    self.process_decode_queue()",
  ...frames,
  "KeyboardInterrupt",
];

test("the traceback of an operator's Ctrl-C is a picture of the main thread: in a collective, a hang's evidence; elsewhere, or with no traceback, a stop someone asked for", () => {
  const r = report("decode.log", INTERRUPTED([
    '  File "/usr/local/lib/python3.10/dist-packages/sglang/srt/disaggregation/utils.py", line 84, in poll_and_all_reduce',
    "    dist.all_reduce(tensor_to_reduce, op=dist.ReduceOp.MIN, group=gloo_group)",
    '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/distributed_c10d.py", line 2501, in all_reduce',
    "    work.wait()",
  ]));
  const [caught, ...others] = violated(r, "process-failure");
  assert.equal(others.length, 0);
  assert.equal(caught!.severity, "medium");
  assert.equal(caught!.title, "decode was caught waiting: KeyboardInterrupt's traceback: MainThread in all_reduce (/usr/local/lib/python3.10/dist-packages/torch/distributed/distributed_c10d.py:2501), a collective");
  assert.match(r.suspects[0]!.summary, /a hang, in a collective \(all_reduce\): the collective is suspected/);
  const idle = report("decode.log", INTERRUPTED([
    '  File "/usr/local/lib/python3.10/dist-packages/sglang/srt/managers/scheduler.py", line 1190, in recv_requests',
    "    recv_req = self.recv_from_tokenizer.recv_pyobj(zmq.NOBLOCK)",
    '  File "/usr/local/lib/python3.10/dist-packages/zmq/sugar/socket.py", line 1034, in recv_pyobj',
    "    msg = self.recv(flags)",
  ]));
  assert.deepEqual(violated(idle, "process-failure"), []);
  assert.deepEqual(violated(report("decode.log", ["KeyboardInterrupt"]), "process-failure"), []);
});

test("interrupt tracebacks of a server's ranks are read together as its dumps are: the one rank outside the collective is where the stall starts", () => {
  const dir = mkdtempSync(join(tmpdir(), "kvrewind-interrupts-"));
  try {
    const collective = ['  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/distributed_c10d.py", line 2501, in all_reduce', "    work.wait()"];
    const elsewhere = ['  File "/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py", line 954, in synchronize', "    return torch._C._cuda_synchronize()"];
    for (const [tp, frames] of [[0, elsewhere], [1, collective], [2, collective]] as const) {
      writeFileSync(join(dir, `decode-tp${tp}.log`), `${INTERRUPTED(frames).join("\n")}\n`);
    }
    const r = JSON.parse(analyzeCli(dir, "--json").stdout) as AnalysisReport;
    const [caught, ...others] = violated(r, "process-failure");
    assert.equal(others.length, 0);
    assert.deepEqual([caught!.severity, caught!.ranks], ["medium", ["decode/tp1", "decode/tp2"]]);
    assert.match(caught!.explanation, /decode\/tp0's dump is not in all_reduce: its main thread in synchronize \(.*torch\/cuda\/__init__.py:954\)\. The ranks in the collective wait for it/);
    assert.match(r.suspects[0]!.summary, /caught every other rank in one collective and decode\/tp0 elsewhere/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const BATCH = (time: string, queued: number) =>
  `[2026-06-11 ${time} DP0 TP0] Decode batch, #running-req: 48, #token: 331200, token usage: 0.69, pre-allocated usage: 0.01, #prealloc-req: 0, #transfer-req: 2, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 2318.40, #queue-req: ${queued}`;
const HEALTH = (time: string) => `[2026-06-11 ${time}] INFO:     10.0.4.9:51022 - "GET /health HTTP/1.1" 200 OK`;

test("a scheduler caught in a KV transfer's poll makes the transfer the suspect", () => {
  const r = report("pyspy-decode.txt", [
    "Process 51877: sglang::scheduler_TP0",
    "Python v3.12.3 (/usr/bin/python3.12)",
    "",
    'Thread 51877 (idle): "MainThread"',
    "    wait (threading.py:355)",
    "    poll (sglang/srt/disaggregation/mooncake/conn.py:1412)",
    "    pop_transferred (sglang/srt/disaggregation/decode.py:744)",
  ]);
  const [failure] = violated(r, "process-failure");
  assert.match(failure!.title, /was caught waiting: .* in wait \(threading.py:355\), a KV transfer's wait$/);
  assert.match(r.suspects[0]!.summary, /: a hang, in a KV transfer's wait \(poll\): the transfer is suspected/);
  assert.doesNotMatch(r.suspects[0]!.summary, /collective/);
});

test("a scheduler that ran no batch with requests waiting, while its server answered for minutes, stopped: high, with what the logs cannot say", () => {
  const r = report("decode.log", [BATCH("14:06:30", 0), BATCH("14:06:40", 6), HEALTH("14:07:00"), HEALTH("14:08:00"), HEALTH("14:09:00")]);
  const [stop, ...others] = violated(r, "process-failure");
  assert.equal(others.length, 0);
  assert.equal(stop!.severity, "high");
  assert.equal(stop!.title, "decode/tp0 stopped: no batch after 2026-06-11T14:06:40.000Z, with 6 request(s) waiting to run and 48 running, while the server went on answering HTTP to 2026-06-11T14:09:00.000Z");
  assert.match(stop!.explanation, /decode\/tp0 showed `no batch after/);
  assert.match(stop!.explanation, /Where the scheduler waited is not in this evidence/);
  const [suspect] = r.suspects;
  assert.deepEqual([suspect!.cause, suspect!.confidence], ["process-crash", 0.6]);
  assert.match(suspect!.summary, /^decode\/tp0: no process died, yet the work stopped \(decode\/tp0 stopped: .*\): a hang: where the ranks wait is not in this evidence/);
  assert.equal(suspect!.falsify, stop!.falsify);
});

const DP1_BATCH = (time: string) =>
  `[2026-06-11 ${time} DP1 TP1] Decode batch, #running-req: 40, #token: 301200, token usage: 0.62, pre-allocated usage: 0.01, #prealloc-req: 0, #transfer-req: 0, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 2100.40, #queue-req: 0`;

test("a rank that ran no batch with requests waiting while its server's log went on (another rank's batches) stopped, and the later line is the witness", () => {
  const r = report("decode.log", [BATCH("14:06:30", 0), BATCH("14:06:40", 6), DP1_BATCH("14:07:40"), DP1_BATCH("14:09:40")]);
  const [stop, ...others] = violated(r, "process-failure");
  assert.equal(others.length, 0);
  assert.deepEqual([stop!.severity, stop!.ranks], ["high", ["decode/tp0"]]);
  assert.match(stop!.title, /^decode\/tp0 stopped: no batch after 2026-06-11T14:06:40.000Z, with 6 request\(s\) waiting to run and 48 running, while its server went on logging to 2026-06-11T14:09:40.000Z \(.*decode.log:4\)$/);
  assert.ok(stop!.witness.some((w) => w.line === 4), JSON.stringify(stop!.witness));
});

test("no stop where the log merely ends after the batch, nor where only another server's log goes on", () => {
  assert.deepEqual(violated(report("decode.log", [BATCH("14:06:30", 0), BATCH("14:06:40", 6)]), "process-failure"), []);
  const dir = mkdtempSync(join(tmpdir(), "kvrewind-stall-"));
  try {
    writeFileSync(join(dir, "decode.log"), `${[BATCH("14:06:30", 0), BATCH("14:06:40", 6)].join("\n")}\n`);
    const prefill = (time: string) => `[2026-06-11 ${time} TP0] Prefill batch, #new-seq: 1, #new-token: 2048, #cached-token: 0, token usage: 0.10, #unbootstrapped-req: 0, #queue-req: 0, #transferring-req: 1, input throughput (token/s): 9000.00`;
    writeFileSync(join(dir, "prefill.log"), `${[prefill("14:06:35"), prefill("14:08:00"), prefill("14:09:40")].join("\n")}\n`);
    const r = JSON.parse(analyzeCli(dir, "--json").stdout) as AnalysisReport;
    assert.deepEqual(violated(r, "process-failure"), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("no stop where nothing waited (running requests may all finish before the next line), nor where the server's answers end within two minutes", () => {
  const finished = report("decode.log", [BATCH("14:06:30", 0), BATCH("14:06:40", 0), HEALTH("14:07:00"), HEALTH("14:09:00")]);
  assert.deepEqual(violated(finished, "process-failure"), []);
  const brief = report("decode.log", [BATCH("14:06:40", 6), HEALTH("14:07:00"), HEALTH("14:08:30")]);
  assert.deepEqual(violated(brief, "process-failure"), []);
});

// vLLM's API server prints the engine's statistics every interval whatever the engine core does
// (vllm/v1/metrics/loggers.py LoggingStatLogger.log, called by the server's `_force_log` task every 10 s).
const STATS = (time: string, prompt: string, generation: string, running: number, waiting: number) =>
  `INFO 06-11 ${time} [loggers.py:116] Engine 000: Avg prompt throughput: ${prompt} tokens/s, Avg generation throughput: ${generation} tokens/s, Running: ${running} reqs, Waiting: ${waiting} reqs, GPU KV cache usage: 81.0%, Prefix cache hit rate: 12.0%`;

test("an engine whose statistics show requests running and no token made is stopped; an idle engine, and one that makes tokens, are not", () => {
  const r = report("vllm-decode.log", [
    STATS("14:02:10", "5120.0", "1400.2", 60, 0),
    STATS("14:02:20", "0.0", "0.0", 60, 12),
    STATS("14:02:30", "0.0", "0.0", 60, 20),
    STATS("14:02:40", "0.0", "0.0", 60, 31),
  ]);
  const [stopped, ...others] = violated(r, "process-failure");
  assert.equal(others.length, 0);
  assert.equal(stopped!.severity, "high");
  assert.match(stopped!.title, /stopped: the engine's statistics show 60 request\(s\) running and 31 waiting and no token made \(prompt and generation throughput 0\.0 tokens\/s\) from 2026-06-11T14:02:20\.000Z on 3 lines to 2026-06-11T14:02:40\.000Z$/);
  assert.match(stopped!.explanation, /Where the scheduler waited is not in this evidence/);
  assert.match(r.suspects[0]!.summary, /no process died, yet the work stopped/);
  const idle = report("vllm-decode.log", [STATS("14:02:10", "5120.0", "1400.2", 60, 0), STATS("14:02:20", "0.0", "0.0", 0, 0)]);
  assert.deepEqual(violated(idle, "process-failure"), []);
  const busy = report("vllm-decode.log", [STATS("14:02:10", "0.0", "1400.2", 60, 0), STATS("14:02:20", "2048.0", "0.0", 60, 0)]);
  assert.deepEqual(violated(busy, "process-failure"), []);
});

test("pyspy-hang: the decode server stopped; the dumps caught tp1–tp3 in the scheduler's broadcast and tp0 elsewhere, where the stall starts", async () => {
  const { report: r } = await bundle("pyspy-hang");
  const [stop, caught, ...others] = violated(r, "process-failure");
  assert.equal(others.length, 0);
  assert.deepEqual([stop!.severity, stop!.ranks], ["high", ["decode/tp0", "decode/tp1", "decode/tp2", "decode/tp3"]]);
  assert.match(stop!.title, /stopped: no batch after 2026-06-11T14:06:40.000Z, with 6 request\(s\) waiting to run/);
  assert.deepEqual([caught!.severity, caught!.ranks], ["medium", ["decode/tp1", "decode/tp2", "decode/tp3"]]);
  assert.match(caught!.title, /were caught waiting: py-spy's dump: MainThread \(idle\) in broadcast \(torch\/distributed\/distributed_c10d.py:2606\), a collective$/);
  assert.match(caught!.explanation, /decode\/tp0's dump is not in broadcast: MainThread \(active\) in synchronize \(torch\/cuda\/__init__.py:954\)\. The ranks in the collective wait for it/);
  assert.match(r.suspects[0]!.summary, /caught every other rank in one collective and decode\/tp0 elsewhere/);
  assert.match(r.suspects[0]!.summary, /a hang, in a collective \(broadcast\): the collective is suspected/);
  assert.equal(r.suspects[0]!.falsify, caught!.falsify);
});
