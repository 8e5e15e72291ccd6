// The boot time of a plain dmesg file's runs (ingest/formats/log/kernelClock.ts),
// from the same machine's dated copies of its kernel ring: `dmesg -T`,
// `journalctl -k` (any of its text forms or JSON), kern.log. A line in both
// (the same message, read from the same ring) gives wall = boot + seconds,
// so boot = wall - seconds; journald's JSON states the seconds itself
// (_SOURCE_MONOTONIC_TIMESTAMP), which pairs a line exactly.
//
// Which pairs count: a message (with its stamp, where the dated line states
// one) that occurs once in the plain file and once in the dated file, so
// that a line repeated at every boot (`Linux version …`) never pairs two
// boots. Which times agree: the dated logs print whole seconds (ctime's
// `%H:%M:%S`, journalctl's short forms), truncated, and journald and syslog
// stamp a line when they read it — a few milliseconds after the kernel wrote
// it, or later for the lines written before journald started (the backlog it
// reads at start, journald-kmsg.c server_flush_dev_kmsg) — never before. So
// each pair puts the boot in [estimate, estimate + 1 s), less its reading
// delay: the pairs read at once agree within AGREE_US (1 s) of the earliest
// estimate, and the boot is the latest of those (the tightest bound).
// A run is anchored when two pairs agree so. An estimate earlier than the
// agreeing ones cannot be (a pair of two boots), and a `dmesg -T` estimate
// later than them cannot be either (`dmesg -T` adds one boot time to every
// line): the run is then left timeless, with the reason; a later estimate of
// journald or syslog is a line read late, left out. `dmesg -T`'s times
// are wrong after a suspend (dmesg(1): the time the machine slept is not in
// the kernel's seconds, util-linux sys-utils/dmesg.c adds the boot time taken
// from CLOCK_BOOTTIME, which counts it), so they anchor only the runs before
// the machine first slept; journald's and syslog's reception times anchor any run.
// The anchored times are as exact as the dated logs' seconds: within 1 s.

import { isoFromUs } from "../../domain/timeFormat.js";
import type { DatedKernelLine, KernelStamp, PlainKernelLine } from "../../domain/kernelLines.js";
import type { KernelRunAnchor } from "../formats/log/kernelClock.js";

/** A dated kernel log of the same host, by the path the reports name it by. */
export interface DatedKernelSource {
  path: string;
  lines: readonly DatedKernelLine[];
}

/** How far the estimates of one run's boot spread when their lines were read at once: the dated logs' whole second. */
export const AGREE_US = 1_000_000;

interface Estimate {
  bootUs: number;
  path: string;
  stamp: KernelStamp;
}

/** The key a line pairs by: its message, and its stamp where the dated line states one. */
function keyOf(message: string, sinceBootUs: number | null): string {
  return sinceBootUs === null ? message : `${sinceBootUs}\u0000${message}`;
}

function counts<T>(items: readonly T[], key: (t: T) => string): Map<string, number> {
  const n = new Map<string, number>();
  for (const t of items) {
    const k = key(t);
    n.set(k, (n.get(k) ?? 0) + 1);
  }
  return n;
}

/** Each run of `plain`'s anchor, from the host's `dated` kernel logs. */
export function kernelRunAnchors(plain: readonly PlainKernelLine[], dated: readonly DatedKernelSource[]): KernelRunAnchor[] {
  const runs = plain.reduce((n, p) => Math.max(n, p.run + 1), 0);
  const estimates: Estimate[][] = Array.from({ length: runs }, () => []);
  const sleptCtime = new Array<number>(runs).fill(0);
  const byMessage = counts(plain, (p) => keyOf(p.message, null));
  const byStamp = counts(plain, (p) => keyOf(p.message, p.sinceBootUs));
  const once = new Map<string, PlainKernelLine>();
  for (const p of plain) {
    if (byMessage.get(keyOf(p.message, null)) === 1) once.set(keyOf(p.message, null), p);
    if (byStamp.get(keyOf(p.message, p.sinceBootUs)) === 1) once.set(keyOf(p.message, p.sinceBootUs), p);
  }
  for (const source of dated) {
    const inSource = counts(source.lines, (d) => keyOf(d.message, d.sinceBootUs));
    for (const d of source.lines) {
      const key = keyOf(d.message, d.sinceBootUs);
      const p = once.get(key);
      if (p === undefined || inSource.get(key) !== 1) continue;
      if (d.stamp === "ctime" && p.afterSleep) {
        sleptCtime[p.run]!++;
        continue;
      }
      estimates[p.run]!.push({ bootUs: d.wallUs - p.sinceBootUs, path: source.path, stamp: d.stamp });
    }
  }
  return estimates.map((found, run) => anchorOf(found, sleptCtime[run]!));
}

function seconds(us: number): string {
  return `${(us / 1_000_000).toFixed(1)} s`;
}

function anchorOf(found: Estimate[], sleptCtime: number): KernelRunAnchor {
  if (found.length === 0) {
    return sleptCtime > 0
      ? { bootUs: null, origin: `timeless: the machine slept before it, so the ${sleptCtime} line(s) of it in dmesg -T have wrong times (dmesg(1)), and no journald or syslog line of it is at hand` }
      : { bootUs: null, origin: "timeless: none of its lines is in a dated kernel log of its host" };
  }
  const ests = [...found].sort((a, b) => a.bootUs - b.bootUs);
  const agreeing = ests.filter((e) => e.bootUs - ests[0]!.bootUs < AGREE_US);
  if (agreeing.length < 2) {
    return ests.length === 1
      ? { bootUs: null, origin: `timeless: one line only is also in a dated kernel log (${ests[0]!.path}), and one line is no anchor` }
      : { bootUs: null, origin: `timeless: the boot times its ${ests.length} lines in dated kernel logs give disagree (the earliest two by ${seconds(ests[1]!.bootUs - ests[0]!.bootUs)})` };
  }
  const later = ests.slice(agreeing.length);
  if (later.some((e) => e.stamp === "ctime")) {
    return { bootUs: null, origin: `timeless: dmesg -T's lines give boot times up to ${seconds(ests[ests.length - 1]!.bootUs - ests[0]!.bootUs)} apart, which one boot cannot` };
  }
  const bootUs = agreeing[agreeing.length - 1]!.bootUs;
  const paths = [...new Set(agreeing.map((e) => e.path))].join(", ");
  const late = later.length > 0 ? `; ${later.length} line(s) that journald or syslog read later are not used` : "";
  return { bootUs, origin: `second 0 at ${isoFromUs(bootUs)}, from ${agreeing.length} line(s) also in ${paths}, agreeing within ${seconds(AGREE_US)}${late}` };
}
