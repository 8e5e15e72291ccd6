// The kernel's own clock in a log: plain `dmesg` stamps a line with the
// seconds since boot (printk's timestamp, kernel/printk/printk.c
// print_time: `[%5lu.%06lu]`, from local_clock(), which stands still while
// the machine sleeps), never the wall time. A plain dmesg file is read as
// a sequence of runs of one clock: a new boot where the seconds go back, a
// new run at each suspend or hibernation (kernel/power/suspend.c pm_suspend
// `PM: suspend entry (…)` / `PM: suspend exit`, kernel/power/hibernate.c
// hibernate `hibernation entry` / `hibernation exit`), since the seconds do
// not count the time slept. A run's records take wall times only from the
// anchor the ingest found for that run in a dated copy of the same ring
// (ingest/sources/kernelBoot.ts); without one they stay timeless.
//
// Each kernel record is marked for the source's facts (what the anchors are
// computed from): a plain line's run, seconds and message; a dated line's
// wall time, message, and its seconds since boot where the line states them
// (journald JSON's _SOURCE_MONOTONIC_TIMESTAMP, a kern.log line that kept
// dmesg's stamp).

import type { ParsedEvent } from "../../../domain/event.js";
import type { DatedKernelLine } from "../../../domain/kernelLines.js";

/** A run of a plain dmesg file: the boot it belongs to, and whether the machine slept before it in that boot. */
interface KernelRun {
  boot: number;
  afterSleep: boolean;
}

/** The wall time of a run's second 0 (its boot, shifted by the time slept before it), and how it was found; null: no anchor, and why. */
export interface KernelRunAnchor {
  bootUs: number | null;
  origin: string;
}

const SLEEP = /^PM: (?:hibernation: )?(?:suspend|hibernation) (entry|exit)\b/;

/** Splits a plain dmesg file into runs of one clock, line by line. */
export class KernelRuns {
  readonly runs: KernelRun[] = [];
  private lastUs = -1;
  private afterExit = false;

  /** The run of a line stamped `sinceBootUs` whose message is `message`. */
  next(sinceBootUs: number, message: string): number {
    const sleep = SLEEP.exec(message)?.[1];
    const current = this.runs[this.runs.length - 1];
    if (current === undefined || sinceBootUs < this.lastUs) this.runs.push({ boot: (current?.boot ?? -1) + 1, afterSleep: false });
    // The lines between a sleep's entry and its exit are a run of their own: some were written before the sleep, some after.
    else if (sleep === "entry" || this.afterExit) this.runs.push({ boot: current.boot, afterSleep: true });
    this.afterExit = sleep === "exit";
    this.lastUs = sinceBootUs;
    return this.runs.length - 1;
  }
}

/** `[ 1843.309055] `: dmesg's seconds since boot, in µs. */
export function sinceBootUsOf(stamp: string): number {
  const dot = stamp.indexOf(".");
  return Number(stamp.substring(0, dot)) * 1_000_000 + Number(stamp.substring(dot + 1));
}

/** The wall times of a file's kernel records, and the marks its facts keep. */
export class KernelClock {
  private readonly runs = new KernelRuns();
  /** Plain records dated by their run's anchor. */
  anchored = 0;

  constructor(private readonly anchors: readonly KernelRunAnchor[] | undefined) {}

  /**
   * The wall time of a kernel record (-1: none) and its mark: `ownUs` is
   * `dmesg -T`'s time (-1 for none), `sinceBootUs` dmesg's or journald's
   * seconds since boot, `wrapperUs` the time journald or syslog stamped it.
   */
  wallUs(ev: ParsedEvent, message: string, ownUs: number, sinceBootUs: number | undefined, wrapperUs: number): number {
    const text = message.trimEnd();
    if (ownUs >= 0 || wrapperUs >= 0) {
      const dated: DatedKernelLine = ownUs >= 0 ? { wallUs: ownUs, sinceBootUs: null, message: text, stamp: "ctime" } : { wallUs: wrapperUs, sinceBootUs: sinceBootUs ?? null, message: text, stamp: "received" };
      ev.kernelLine = { dated };
      return dated.wallUs;
    }
    if (sinceBootUs === undefined) return -1;
    const run = this.runs.next(sinceBootUs, text);
    ev.kernelLine = { plain: { run, afterSleep: this.runs.runs[run]!.afterSleep, sinceBootUs, message: text } };
    const bootUs = this.anchors?.[run]?.bootUs ?? null;
    if (bootUs === null) return -1;
    this.anchored++;
    return bootUs + sinceBootUs;
  }
}
