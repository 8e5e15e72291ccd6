// A kernel record's clock as its line states it (ingest/formats/log/kernelClock.ts
// reads it): what a source's facts keep of its kernel lines, from which the
// ingest finds the boot time of a plain dmesg file's runs (ingest/sources/kernelBoot.ts).

/** A plain dmesg line: no wall time, its run of one clock (ingest/formats/log/kernelClock.ts KernelRuns). */
export interface PlainKernelLine {
  run: number;
  /** The machine slept earlier in the run's boot: `dmesg -T`'s times are no anchor for it. */
  afterSleep: boolean;
  sinceBootUs: number;
  message: string;
}

/**
 * How a dated kernel line got its wall time: `ctime` is `dmesg -T`'s
 * boot time plus the seconds (exact until the first suspend: dmesg(1) says its
 * times are inaccurate after one); `received` is the time journald or syslog
 * stamped the line on reading it from the kernel (never before the kernel wrote it).
 */
export type KernelStamp = "ctime" | "received";

export interface DatedKernelLine {
  wallUs: number;
  /** The seconds since boot the line also states, in µs; null when it states none. */
  sinceBootUs: number | null;
  message: string;
  stamp: KernelStamp;
}

/** A kernel record as the source's facts keep it (ParsedEvent.kernelLine). */
export type KernelLineMark = { plain: PlainKernelLine } | { dated: DatedKernelLine };

