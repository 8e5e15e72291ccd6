// gdb's thread notices (ingest/formats/templates/platform/gdb.ts), written by hand
// from gdb's format strings: `[New %s]` (gdb/thread.c add_thread_with_info) and
// `[%s exited]` (gdb/linux-nat.c exit_lwp) around `Thread 0x%lx (LWP %ld)`
// (gdb/linux-thread-db.c) or `LWP %ld`. gdb's information, at info.

import { LogKind } from "../../../domain/kinds.js";
import type { EngineConformanceRow } from "./row.js";

const notice = (attrs: Record<string, unknown>) => ({ kind: LogKind.message, attrs: { level: "info", debugger: "gdb", ...attrs } });

export const GDB_ROWS: EngineConformanceRow[] = [
  { template: "gdb.thread_event", expect: notice({ thread: "exited", lwp: 7638 }) },
  { template: "gdb.thread_event", sample: 1, expect: notice({ thread: "new", lwp: 48213 }) },
  { template: "gdb.thread_event", sample: 2, expect: notice({ thread: "new", lwp: 48214 }) },
  { template: "gdb.thread_event", sample: 3, expect: notice({ thread: "exited", lwp: 48214 }) },
];
