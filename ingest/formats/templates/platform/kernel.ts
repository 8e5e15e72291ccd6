// The kernel's own reports of what it did to a machine's processes and GPUs,
// as `dmesg`, `journalctl -k` and /var/log/kern.log hold them: the OOM
// killer (mm/oom_kill.c), a user-space segfault (arch/x86/mm/fault.c
// show_signal_msg) or a trap (arch/x86/kernel/traps.c show_signal), a task
// blocked in the kernel (kernel/hung_task.c), a CPU stuck in the kernel
// (kernel/watchdog.c), the kernel's own fault (an oops: arch/x86/mm/fault.c
// show_fault_oops, the BUG() macro's report, arch/x86/kernel/dumpstack.c
// __die) or its panic (kernel/panic.c), and the
// NVIDIA driver's Xid reports (open-gpu-kernel-modules
// src/nvidia/src/kernel/gpu/rc/kernel_rc.c). They name a process (its
// 15-character `comm` and pid) and a GPU, never a rank: every record is the
// machine's (`scope: machine`), its host the folder's or the syslog line's.

import type { ParsedEvent } from "../../../../domain/event.js";
import { LogKind } from "../../../../domain/kinds.js";
import { cap, type Groups, type LogTemplate, type TemplateComponent } from "../template.js";

/** The letters, digits and marks a process's `comm` may start with (its dispatch buckets). */
const COMM_FIRST = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-:(";

/** `python3 (pid 41234)`: the process a record names, as the kernel printed it. */
function processText(g: Groups): string {
  return `${g.process} (pid ${g.pid})`;
}

function oomKilled(ev: ParsedEvent, g: Groups): void {
  ev.attrs!.error = `${processText(g)} killed by the kernel's OOM killer${g.why === "Memory cgroup out of memory" ? " (its memory cgroup's limit)" : ""}`;
}

function oomChose(ev: ParsedEvent, g: Groups): void {
  ev.attrs!.error = `${processText(g)} or a child of it killed by the kernel's OOM killer${g.why === "Memory cgroup out of memory" ? " (its memory cgroup's limit)" : ""}`;
}

/** What a trap's description names, as arch/x86/kernel/traps.c passes it (do_trap's `str`, exc_general_protection's `desc`): its signal and class. */
const TRAPS: Readonly<Record<string, { signal: string; failureClass: string }>> = {
  "general protection fault": { signal: "SIGSEGV", failureClass: "segfault" },
  "general protection": { signal: "SIGSEGV", failureClass: "segfault" },
  "trap invalid opcode": { signal: "SIGILL", failureClass: "crash" },
  "trap divide error": { signal: "SIGFPE", failureClass: "crash" },
  "trap stack segment": { signal: "SIGBUS", failureClass: "segfault" },
  "trap int3": { signal: "SIGTRAP", failureClass: "crash" },
};

/** A trap this table does not name still killed the process: a `crash`, its signal unsaid. */
function trapped(ev: ParsedEvent, g: Groups): void {
  const trap = TRAPS[g.trap!];
  ev.attrs!.failureClass = trap?.failureClass ?? "crash";
  if (trap !== undefined) ev.attrs!.signal = trap.signal;
  ev.attrs!.error = `${processText(g)} killed by ${trap?.signal ?? "a trap"}: ${g.trap}${g.in === undefined ? "" : ` in ${g.in}`}`;
}

function segfault(ev: ParsedEvent, g: Groups): void {
  ev.attrs!.error = `${processText(g)} killed by SIGSEGV: segfault at ${g.address}${g.in === undefined ? "" : ` in ${g.in}`}`;
}

function hungTask(ev: ParsedEvent, g: Groups): void {
  ev.attrs!.error = `${g.process} (pid ${g.pid}) blocked in the kernel for more than ${g.seconds} s`;
}

function softLockup(ev: ParsedEvent, g: Groups): void {
  ev.attrs!.error = `CPU ${g.cpu} stuck in the kernel for ${g.seconds} s, running ${g.process} (pid ${g.pid})`;
}

function kernelOops(ev: ParsedEvent, g: Groups): void {
  ev.attrs!.error = `the kernel faulted (an oops): ${g.what}`;
}

function kernelPanic(ev: ParsedEvent, g: Groups): void {
  ev.attrs!.error = `the kernel panicked: ${g.reason}`;
}

/** The openings of an oops's first line: a fault the kernel took, or a BUG() it hit. */
const OOPS_OPENINGS = ["BUG: unable to handle ", "BUG: kernel NULL pointer dereference", "kernel BUG at ", "Oops: "];

/** What an Xid number reports and how it weighs (NVIDIA's "Xid Errors" catalogue, docs.nvidia.com/deploy/xid-errors). */
interface XidMeaning {
  text: string;
  /** error: a failure; warning: a record of what the driver did after another failure or of a repair. */
  level: "error" | "warning";
  /** transport: the GPU's link (PCIe, NVLink) failed; gpu-device: the GPU itself; cuda-error: a fault of the program's work. */
  failureClass?: "transport" | "gpu-device" | "cuda-error";
}

const XIDS: Readonly<Record<number, XidMeaning>> = {
  13: { text: "Graphics Engine Exception", level: "error", failureClass: "cuda-error" },
  31: { text: "GPU memory page fault", level: "error", failureClass: "cuda-error" },
  43: { text: "GPU stopped processing", level: "error", failureClass: "cuda-error" },
  45: { text: "Preemptive cleanup, due to previous errors", level: "warning" },
  48: { text: "Double Bit ECC Error", level: "error", failureClass: "gpu-device" },
  63: { text: "ECC page retirement or row remapping recording event", level: "warning" },
  64: { text: "ECC page retirement or row remapper recording failure", level: "error", failureClass: "gpu-device" },
  74: { text: "NVLink Error", level: "error", failureClass: "transport" },
  79: { text: "GPU has fallen off the bus", level: "error", failureClass: "transport" },
  92: { text: "High single-bit ECC error rate", level: "warning" },
  94: { text: "Contained ECC error", level: "error", failureClass: "gpu-device" },
  95: { text: "Uncontained ECC error", level: "error", failureClass: "gpu-device" },
  119: { text: "GSP RPC Timeout", level: "error", failureClass: "gpu-device" },
  120: { text: "GSP Error", level: "error", failureClass: "gpu-device" },
};

/** The Xids that are warnings: the error row's pattern leaves them to the warning row's. */
const WARNING_XIDS = Object.keys(XIDS).filter((x) => XIDS[Number(x)]!.level === "warning");

/** An Xid line whose number `xid` (a pattern) matches. */
function xidPattern(xid: string): RegExp {
  return new RegExp(
    String.raw`NVRM: Xid \(PCI:(?<pci>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})(?: GPU-I:(?<gi>\d+))?(?: GPU-CI:\d+)?\): (?<xid>${xid}), (?:pid=(?<pid>[^,]*), name=(?<name>[^,]*), )?(?<message>.*)`,
    "ys",
  );
}

const XID_ERROR = xidPattern(String.raw`(?!(?:${WARNING_XIDS.join("|")}),)\d+`);
const XID_WARNING = xidPattern(WARNING_XIDS.join("|"));

/**
 * An Xid line's fields, by `pattern` (the error row's or the warning row's):
 * an error is classed by its number's meaning; an Xid this table does not
 * know is an error of the GPU's work (`cuda-error`).
 */
function xidReader(pattern: RegExp): (line: string, at: number, ev: ParsedEvent) => boolean {
  return (line, at, ev) => {
    pattern.lastIndex = at;
    const m = pattern.exec(line);
    if (m === null) return false;
    const g = m.groups!;
    const xid = Number(g.xid);
    const meaning = XIDS[xid];
    const attrs: Record<string, unknown> = { scope: "machine", xid, pci: g.pci };
    if (g.gi !== undefined) attrs.gpuInstance = Number(g.gi);
    // The driver prints `pid='<unknown>', name=<unknown>` (or leaves both out) when no process owns the channel.
    if (g.pid !== undefined && /^\d+$/.test(g.pid)) attrs.pid = Number(g.pid);
    if (g.name !== undefined && !g.name.includes("<unknown>")) attrs.process = g.name;
    const message = g.message!.trim();
    const named = meaning === undefined || message.startsWith(meaning.text) ? "" : ` (${meaning.text})`;
    attrs.error = `Xid ${xid} on GPU PCI:${g.pci}${named}: ${message}`;
    if (meaning?.level === "warning") {
      ev.kind = LogKind.message;
      attrs.level = "warning";
    } else {
      ev.kind = LogKind.error;
      attrs.level = "error";
      attrs.failureClass = meaning?.failureClass ?? "cuda-error";
    }
    ev.attrs = attrs;
    return true;
  };
}

const templates: LogTemplate[] = [
  {
    id: "kernel.oom_killed",
    kind: LogKind.crash,
    checked: "✔",
    level: "err",
    format:
      "{message}: Killed process {pid} ({comm}) total-vm:{n}kB, anon-rss:{n}kB, file-rss:{n}kB, shmem-rss:{n}kB, UID:{uid} pgtables:{n}kB oom_score_adj:{n}" +
      " — `{message}` is `Out of memory` or `Memory cgroup out of memory`; before 5.0 `Killed process {pid} ({comm}) total-vm:…kB, anon-rss:…kB, file-rss:…kB[, shmem-rss:…kB]`" +
      " with no message. The kernel sent SIGKILL to the process",
    source: "mm/oom_kill.c __oom_kill_process (torvalds/linux; the older form oom_kill_process, v3.x–v4.x)",
    head: (line, at) => line.startsWith("Out of memory: Killed process ", at) || line.startsWith("Memory cgroup out of memory: Killed process ", at) || line.startsWith("Killed process ", at),
    firstChars: "OMK",
    pattern: /(?:(?<why>Out of memory|Memory cgroup out of memory): )?Killed process (?<pid>\d+) \((?<process>[^)]*)\)(?: total-vm:(?<totalVm>\d+)kB, anon-rss:(?<anonRss>\d+)kB)?/ys,
    attrs: {
      scope: "machine",
      what: "killed by the kernel's OOM killer",
      signal: "SIGKILL",
      pid: cap("pid", "number"),
      process: cap("process"),
      anonRssKb: cap("anonRss", "number"),
      fatal: true,
      failureClass: "host-oom",
    },
    refine: oomKilled,
    samples: [
      "[ 1843.309055] Out of memory: Killed process 41234 (python3) total-vm:812345612kB, anon-rss:251234560kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:493212kB oom_score_adj:0",
      "[Thu Jun 11 14:07:11 2026] Memory cgroup out of memory: Killed process 7781 (sglang::schedul) total-vm:98765432kB, anon-rss:61234567kB, file-rss:81234kB, shmem-rss:0kB, UID:0 pgtables:152340kB oom_score_adj:-997",
      "[ 912.004511] Killed process 7781 (python) total-vm:98765432kB, anon-rss:61234567kB, file-rss:81234kB, shmem-rss:0kB",
    ],
  },
  {
    id: "kernel.oom_chose",
    kind: LogKind.crash,
    checked: "✔",
    level: "err",
    format:
      "{message}: Kill process {pid} ({comm}) score {points} or sacrifice child — before 4.19, the OOM killer's choice, printed before `Killed process …`: the process, or a child of it with its own memory, is killed",
    source: "mm/oom_kill.c oom_kill_process (torvalds/linux, v3.x–v4.18; index copies)",
    head: (line, at) => line.startsWith("Out of memory: Kill process ", at) || line.startsWith("Memory cgroup out of memory: Kill process ", at) || line.startsWith("Out of memory (oom_kill_allocating_task): Kill process ", at),
    firstChars: "OM",
    pattern: /(?<why>Out of memory|Memory cgroup out of memory|Out of memory \(oom_kill_allocating_task\)): Kill process (?<pid>\d+) \((?<process>[^)]*)\) score (?<score>\d+) or sacrifice child/ys,
    attrs: { scope: "machine", what: "killed by the kernel's OOM killer", signal: "SIGKILL", pid: cap("pid", "number"), process: cap("process"), oomScore: cap("score", "number"), fatal: true, failureClass: "host-oom" },
    refine: oomChose,
    samples: ["[ 1843.309050] Out of memory: Kill process 41234 (python3) score 912 or sacrifice child"],
  },
  {
    id: "kernel.oom_invoked",
    kind: LogKind.message,
    checked: "✔",
    level: "warning",
    format:
      "{comm} invoked oom-killer: gfp_mask={mask}({flags}), order={n}, oom_score_adj={n} — the first line of the OOM report: the process that could not allocate" +
      " (not necessarily the one killed, which `Killed process` names)",
    source: "mm/oom_kill.c dump_header (pr_warn)",
    head: (line, at) => line.indexOf(" invoked oom-killer: ", at) > at,
    firstChars: COMM_FIRST,
    pattern: /(?<process>.{1,16}?) invoked oom-killer: gfp_mask=(?<gfpMask>0x[0-9a-f]+)/ys,
    attrs: { scope: "machine", level: "warning", process: cap("process"), gfpMask: cap("gfpMask") },
    samples: ["[ 1843.308145] python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0"],
  },
  {
    id: "kernel.oom_summary",
    kind: LogKind.message,
    checked: "✔",
    level: "info",
    format: "oom-kill:constraint={constraint},nodemask={mask},cpuset={cpuset},mems_allowed={nodes}[,oom_memcg={cg}],task_memcg={cg},task={comm},pid={pid},uid={uid} — one line summing up the kill",
    source: "mm/oom_kill.c dump_oom_summary (pr_info, pr_cont), 5.0+",
    head: "oom-kill:constraint=",
    pattern: /oom-kill:constraint=(?<constraint>\w+),.*?,task=(?<process>.{1,16}?),pid=(?<pid>\d+),uid=\d+/ys,
    attrs: { scope: "machine", level: "info", constraint: cap("constraint"), process: cap("process"), pid: cap("pid", "number") },
    samples: [
      "[ 1843.309001] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice/user-1000.slice/session-3.scope,task=python3,pid=41234,uid=1000",
    ],
  },
  {
    id: "kernel.segfault",
    kind: LogKind.crash,
    checked: "✔",
    level: "info",
    format:
      "{comm}[{pid}]: segfault at {address} ip {ip} sp {sp} error {code} in {file}[{base}+{size}] (` likely on CPU {n} (core {n}, socket {n})` after it from 6.1)" +
      " — printed only for a SIGSEGV the process does not handle, so the process died",
    source: "arch/x86/mm/fault.c show_signal_msg, print_vma_addr",
    head: (line, at) => line.indexOf("]: segfault at ", at) > at,
    firstChars: COMM_FIRST,
    pattern: /(?<process>.{1,16}?)\[(?<pid>\d+)\]: segfault at (?<address>[0-9a-f]+) ip [0-9a-f]+ sp [0-9a-f]+ error [0-9a-f]+(?: in (?<in>[^[\s]+))?/ys,
    attrs: { scope: "machine", what: "killed by SIGSEGV", signal: "SIGSEGV", pid: cap("pid", "number"), process: cap("process"), address: cap("address"), fatal: true, failureClass: "segfault" },
    refine: segfault,
    samples: [
      "[ 2011.551020] python3[41301]: segfault at 0 ip 00007f3a9c2b1e40 sp 00007ffd4c1a2b30 error 4 in libmooncake_transfer_engine.so[7f3a9c200000+3b1000] likely on CPU 17 (core 5, socket 0)",
    ],
  },
  {
    id: "kernel.trap",
    kind: LogKind.crash,
    checked: "✔",
    level: "info",
    format:
      "traps: {comm}[{pid}] {trap}{desc} ip:{ip} sp:{sp} error:{code} in {file}[{base}+{size}] — `trap invalid opcode`, `trap divide error`, … (do_trap, `\"trap \"` before the trap's name) or `general protection fault` (`general protection` before 5.x's wording); printed only for a signal the process does not handle, so it died",
    source: "arch/x86/kernel/traps.c show_signal, do_trap, exc_general_protection (pr_fmt `traps: `); index copies of several releases",
    head: "traps: ",
    pattern: /traps: (?<process>.{1,16}?)\[(?<pid>\d+)\] (?<trap>general protection(?: fault)?|trap [a-z][a-z0-9 ]*?) ip:[0-9a-f]+ sp:[0-9a-f]+ error:[0-9a-f]+(?: in (?<in>[^[\s]+))?/ys,
    attrs: { scope: "machine", what: "killed by a trap", pid: cap("pid", "number"), process: cap("process"), fatal: true },
    refine: trapped,
    truncated: "kernel trap line",
    samples: [
      "[ 2011.551020] traps: python3[41301] general protection fault ip:7f3a9c2b1e40 sp:7ffd4c1a2b30 error:0 in libmooncake_transfer_engine.so[7f3a9c200000+3b1000]",
      "[ 2011.551020] traps: python3[41301] trap invalid opcode ip:7f3a9c2b1e40 sp:7ffd4c1a2b30 error:0 in libtorch_cuda.so[7f3a8c000000+5b1000]",
    ],
  },
  {
    id: "kernel.hung_task",
    kind: LogKind.error,
    checked: "✔",
    level: "err",
    format:
      "INFO: task {comm}:{pid} blocked for more than {seconds} seconds. (then the taint and release line, `\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.`" +
      " and the task's stack) — the task sat in uninterruptible sleep for `hung_task_timeout_secs` (120 by default) without being scheduled",
    source: "kernel/hung_task.c check_hung_task",
    head: "INFO: task ",
    pattern: /INFO: task (?<process>.{1,16}?):(?<pid>\d+) blocked for more than (?<seconds>\d+) seconds\./ys,
    attrs: { scope: "machine", level: "error", pid: cap("pid", "number"), process: cap("process"), blockedS: cap("seconds", "number"), failureClass: "hung-task" },
    refine: hungTask,
    samples: ["[ 2291.110843] INFO: task python3:41301 blocked for more than 122 seconds."],
  },
  {
    id: "kernel.soft_lockup",
    kind: LogKind.error,
    checked: "✔",
    level: "emerg",
    format:
      "watchdog: BUG: soft lockup - CPU#{cpu} stuck for {seconds}s! [{comm}:{pid}] (`watchdog: ` is the file's pr_fmt; older kernels print the line without it)" +
      " — a CPU ran in the kernel without scheduling for twice `watchdog_thresh` (20 s by default), in the task named",
    source: "kernel/watchdog.c watchdog_timer_fn (torvalds/linux, index copies)",
    head: (line, at) => line.startsWith("watchdog: BUG: soft lockup - CPU#", at) || line.startsWith("BUG: soft lockup - CPU#", at),
    firstChars: "wB",
    pattern: /(?:watchdog: )?BUG: soft lockup - CPU#(?<cpu>\d+) stuck for (?<seconds>\d+)s! \[(?<process>.{1,16}?):(?<pid>\d+)\]/y,
    attrs: { scope: "machine", level: "error", pid: cap("pid", "number"), process: cap("process"), blockedS: cap("seconds", "number"), failureClass: "hung-task" },
    refine: softLockup,
    samples: ["[ 8411.207331] watchdog: BUG: soft lockup - CPU#17 stuck for 23s! [python3:41301]"],
  },
  {
    id: "kernel.oops",
    kind: LogKind.error,
    checked: "✔",
    level: "alert",
    format:
      "BUG: unable to handle page fault for address: {addr} / `BUG: kernel NULL pointer dereference, address: {addr}` / `BUG: unable to handle kernel {NULL pointer dereference|paging request} at {addr}` (before 5.0) / `kernel BUG at {file}:{line}!` / `Oops: {code} [#{n}] …`" +
      " — the kernel faulted in its own code (an oops): the task it ran is killed, and the machine may be left unstable",
    source: "arch/x86/mm/fault.c show_fault_oops; include/asm-generic/bug.h and lib/bug.c report_bug (`kernel BUG at`); arch/x86/kernel/dumpstack.c __die_header (`Oops: `) (torvalds/linux, index copies)",
    head: (line, at) => OOPS_OPENINGS.some((opening) => line.startsWith(opening, at)),
    firstChars: "BkO",
    pattern:
      /(?<what>BUG: unable to handle (?:page fault for address: |kernel (?:NULL pointer dereference|paging request) at )[0-9a-fx]+|BUG: kernel NULL pointer dereference, address: [0-9a-fx]+|kernel BUG at [^\s!]+!|Oops: (?:Oops: )?[0-9a-f]{4} \[#\d+\])/y,
    attrs: { scope: "machine", level: "error", failureClass: "kernel-oops" },
    refine: kernelOops,
    samples: [
      "[ 9120.504112] BUG: unable to handle page fault for address: ffffafe180a40084",
      "[ 9120.504119] BUG: kernel NULL pointer dereference, address: 0000000000000008",
      "[ 9120.504188] kernel BUG at mm/slub.c:385!",
      "[ 9120.504152] Oops: 0002 [#1] PREEMPT SMP NOPTI",
    ],
  },
  {
    id: "kernel.panic",
    kind: LogKind.crash,
    checked: "✔",
    level: "emerg",
    format: "Kernel panic - not syncing: {reason} — the kernel stopped the machine (a fatal exception, an out-of-memory panic, a hung task or soft lockup set to panic); every process on it is gone",
    source: "kernel/panic.c panic(): `pr_emerg(\"Kernel panic - not syncing: %s\\n\", buf)` (torvalds/linux, index copies)",
    head: "Kernel panic - not syncing: ",
    pattern: /Kernel panic - not syncing: (?<reason>.+?)\s*$/y,
    attrs: { scope: "machine", what: "the kernel panicked", fatal: true, failureClass: "kernel-panic" },
    refine: kernelPanic,
    samples: ["[ 9121.017745] Kernel panic - not syncing: Fatal exception"],
  },
  {
    id: "kernel.nvidia_xid",
    kind: LogKind.error,
    checked: "✔",
    level: "error",
    format:
      "NVRM: Xid (PCI:{domain}:{bus}:{device}[ GPU-I:{gi}[ GPU-CI:{ci}]]): {xid}, pid={pid}, name={process}, {message} (older drivers: no `pid=`, `name=`;" +
      " `pid='<unknown>', name=<unknown>` when no process owns the channel). Xids 13, 31, 43: a fault of the program's work (`cuda-error`);" +
      " 48, 64, 94, 95, 119, 120: of the GPU (`gpu-device`); 74 (NVLink) and 79 (fallen off the bus): of its link (`transport`); any other Xid: `cuda-error`",
    source: "src/nvidia/src/kernel/gpu/rc/kernel_rc.c krcReportXid (NVIDIA/open-gpu-kernel-modules, index copies); meanings from NVIDIA's Xid catalogue",
    head: "NVRM: Xid (",
    pattern: XID_ERROR,
    read: xidReader(XID_ERROR),
    samples: [
      "[ 2011.551020] NVRM: Xid (PCI:0000:3b:00): 79, pid=41301, name=python3, GPU has fallen off the bus.",
      "[Thu Jun 11 14:09:02 2026] NVRM: Xid (PCI:0000:b3:00): 74, pid='<unknown>', name=<unknown>, NVLink: fatal error detected on link 3(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)",
      "[ 8659.726062] NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.",
      "[ 1519.882410] NVRM: Xid (PCI:0000:3b:00): 31, pid=41301, name=python3, Ch 00000010, intr 10000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f3a_9c200000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ",
    ],
  },
  {
    id: "kernel.nvidia_xid_warning",
    kind: LogKind.message,
    checked: "✔",
    level: "warning",
    format:
      "NVRM: Xid (PCI:{domain}:{bus}:{device}): {xid}, … as above, for Xids 45 (`Preemptive cleanup, due to previous errors`: the driver tearing down the channels of a process" +
      " that failed or was killed), 63 (a row remap recorded) and 92 (a high single-bit ECC error rate): what the driver did after another failure, or a repair",
    source: "src/nvidia/src/kernel/gpu/rc/kernel_rc.c krcReportXid (NVIDIA/open-gpu-kernel-modules, index copies); meanings from NVIDIA's Xid catalogue",
    head: "NVRM: Xid (",
    pattern: XID_WARNING,
    read: xidReader(XID_WARNING),
    samples: ["[ 1520.003017] NVRM: Xid (PCI:0000:3b:00): 45, pid=41301, name=python3, Ch 00000010"],
  },
];

export const KERNEL: TemplateComponent = {
  name: "kernel",
  dialect: "kernel",
  title: "The kernel: OOM killer, segfaults and traps, hung tasks and soft lockups, oopses and panics, NVIDIA Xid",
  intro:
    "Lines of the kernel's log (`dmesg`, `dmesg -T`, `journalctl -k`, /var/log/kern.log), read after the `dmesg` stamp or a syslog line's `kernel:` identifier. They name a process and a GPU, never a rank: each event is the machine's (`scope: machine`), judged by process-failure (an OOM kill, a segfault or a trap, a hung task or a CPU stuck in the kernel, the kernel's own oops or panic, a fault of the GPU) or transport-failure (Xid 74, 79) as a finding on the machine. `dmesg`'s seconds since boot are dated only by the boot time the same machine's dated kernel log gives (see below the table); without one, the records are timeless.",
  templates,
};
