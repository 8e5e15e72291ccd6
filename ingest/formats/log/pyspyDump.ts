// py-spy's dump of a live Python process (benfred/py-spy src/dump.rs print_traces), as a user takes it of a server
// that stopped answering, or SGLang's watchdog takes it of its scheduler (utils/watchdog.py pyspy_dump_schedulers):
//
//   Process 48211: sglang::scheduler_DP0_TP3
//   Python v3.10.12 (/usr/bin/python3.10)
//   Parent Process 48102: python3 -m sglang.launch_server …      (with --subprocesses)
//
//   Thread 48211 (idle): "MainThread"
//       all_reduce (torch/distributed/distributed_c10d.py:2501)    (its frames, innermost first)
//       …
//
// What the dump says in summary: the main thread's state and innermost frame, and where that frame waits — in a
// collective or in a KV transfer — when its file says so and py-spy found the thread idle (blocked, not running). One dump is one instant: a thread caught there may be
// passing through, and a second dump in the same frame is what makes it a stall.

import { waitOfFrames } from "./waitingFrames.js";

/** The dump's first line: the process's pid and its command line (a process title set with setproctitle shows as it). */
const PROCESS = /^Process (\d+): \S/;
/** The dump's later lines: its Python, its parent, its threads, their frames (indented) and the blank line after the header. */
const DUMP_LINE = /^(?:Python v\d|Parent Process \d+: |Thread (?:0x)?[0-9a-fA-F]+ \(|\s|$)/;

/** The lines that finish a py-spy dump whose first line is `head`: null when `head` opens none. */
export function pyspyDumpTailOf(head: string): ((line: string) => boolean) | null {
  return PROCESS.test(head) ? (line) => DUMP_LINE.test(line) : null;
}

const THREAD = /^Thread (?:0x)?[0-9a-fA-F]+ \(([^)]*)\)(?:: "([^"]*)")?/;
/** A frame: `function (file:line)`, indented; `--native` frames of C code end `(file.c:line)` too. */
const FRAME = /^\s+(\S.*?) \(([^():]+)(?::\d+)?\)\s*$/;

export interface PyspyDumpSummary {
  threads?: number;
  /** The main thread and its state: `MainThread (idle)`. */
  thread?: string;
  /** Its innermost frame: `all_reduce (torch/distributed/distributed_c10d.py:2501)`. */
  stuckIn?: string;
  /** What that frame waits in, where its file says: a collective or a KV transfer. */
  waitingIn?: "collective" | "transfer";
  /** The function it waits in. */
  waitOp?: string;
}

/** What a py-spy dump's lines (after its first) say of the process's main thread. */
export function pyspyDumpSummary(lines: readonly string[]): PyspyDumpSummary {
  const threads = lines.filter((l) => THREAD.test(l)).length;
  const out: PyspyDumpSummary = threads > 0 ? { threads } : {};
  const main = lines.findIndex((l) => THREAD.exec(l)?.[2] === "MainThread");
  if (main < 0) return out;
  out.thread = `MainThread (${THREAD.exec(lines[main]!)![1]})`;
  const frames: RegExpExecArray[] = [];
  for (let i = main + 1; i < lines.length; i++) {
    const frame = FRAME.exec(lines[i]!);
    if (frame === null) break;
    frames.push(frame);
  }
  if (frames.length === 0) return out;
  out.stuckIn = frames[0]![0].trim();
  // A thread py-spy found running (`active`) is busy, not blocked: only an idle one is caught waiting (dump.rs status_str).
  if (!/\bidle\b/.test(THREAD.exec(lines[main]!)![1]!)) return out;
  const wait = waitOfFrames(frames.map((f) => ({ fn: f[1]!, file: f[2]! })));
  if (wait !== undefined) Object.assign(out, wait);
  return out;
}
