// gdb's notices of the threads of the process it runs or attached to: with
// `print thread-events` on (the default), gdb prints a line when the inferior
// starts a thread and when one ends, with no logger and no time, between the
// program's own output (a `gdb -ex run --args python …` session, or `gdb -p` on
// a hung rank, pasted whole). They say only that a thread came or went: a
// thread's end is no failure of the process (a pool's worker finishing, NCCL's
// proxy threads of a finished communicator). Read as gdb's information, so that
// `Thread 0x…` in them is not taken for faulthandler's thread dump (`Thread
// 0x00007f… (most recent call first):`, ingest/formats/log/unread.ts).
// gdb's report of a signal the process received or died of is ../../log/crash.ts's.

import { LogKind } from "../../../../domain/kinds.js";
import type { LogTemplate, TemplateComponent } from "../template.js";

/** The notices' openings: `[New ` (a thread came), `[Thread 0x…` and `[LWP ` (a thread went). */
const OPENINGS = ["[New Thread 0x", "[New LWP ", "[Thread 0x", "[LWP "];

const templates: LogTemplate[] = [
  {
    id: "gdb.thread_event",
    level: "stdout",
    format:
      "[New Thread 0x{tid} (LWP {lwp})] / [Thread 0x{tid} (LWP {lwp}) exited] (libthread_db's thread names); [New LWP {lwp}] / [LWP {lwp} exited] (an LWP without them) — a thread of the inferior started or ended",
    source:
      "gdb/thread.c add_thread_with_info (`\"[New %s]\\n\"` when print_thread_events), gdb/linux-nat.c exit_lwp (`\"[%s exited]\\n\"`), the thread's name from gdb/linux-thread-db.c thread_db_target::pid_to_str (`\"Thread 0x%lx (LWP %ld)\"`) or the LWP's (`\"LWP %ld\"`, gdb/linux-tdep.c linux_core_pid_to_str and the native targets' pid_to_str) (bminor/binutils-gdb, index copies)",
    checked: "✔",
    head: (line, at) => OPENINGS.some((opening) => line.startsWith(opening, at)),
    firstChars: "[",
    pattern: /\[(?<new>New )?(?:Thread 0x[0-9a-f]+ \(LWP (?<lwp>\d+)\)|LWP (?<bare>\d+))(?<exited> exited)?\](?=\s*$)/y,
    kind: LogKind.message,
    attrs: { level: "info", debugger: "gdb" },
    refine: (ev, g) => {
      const attrs = ev.attrs!;
      // `[New … exited]` is no line gdb prints: the notice is one or the other.
      attrs.thread = g.new !== undefined ? "new" : g.exited !== undefined ? "exited" : "unknown";
      attrs.lwp = Number(g.lwp ?? g.bare);
    },
    samples: [
      // NVIDIA/nccl-tests#273 (the corpus's nccl-tests-273-a): an nccl-tests run under gdb, among NCCL's `Init COMPLETE` lines.
      "[Thread 0x7ffe64ffd000 (LWP 7638) exited]",
      "[New Thread 0x7fff3a1fe640 (LWP 48213)]",
      "[New LWP 48214]",
      "[LWP 48214 exited]",
    ],
  },
];

export const GDB: TemplateComponent = {
  name: "gdb",
  dialect: "engine",
  title: "gdb's thread notices",
  intro:
    "The lines gdb prints, with no logger, as the process it debugs starts and ends threads (`print thread-events`, on by default). Event: `log.message` at info with `thread` (`new` or `exited`) and `lwp`. A thread's end is no failure of the process; gdb's report of a signal is a crash's opener (ingest/formats/log/crash.ts).",
  templates,
};
