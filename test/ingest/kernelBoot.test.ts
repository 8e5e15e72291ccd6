// Plain `dmesg`'s seconds since boot, dated where the same machine's bundle
// holds a dated copy of its kernel ring (`journalctl -k`, journald's JSON,
// `dmesg -T`): each boot, and each stretch between two sleeps, by its own
// lines only; left timeless where nothing dates it. Lines written by hand in
// the shapes dmesg, journalctl and the kernel print; every expected time
// worked out by hand from the boot time the lines were written with.

import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import type { PlainKernelLine } from "../../domain/kernelLines.js";
import { KernelRuns } from "../../ingest/formats/log/kernelClock.js";
import { ingest } from "../../ingest/pipeline.js";
import { kernelRunAnchors } from "../../ingest/sources/kernelBoot.js";
import { iterateEvents } from "../../store/read/events.js";
import { listIngestedSources } from "../../store/read/sources.js";
import { tempDir, withDb, writeTree } from "./bundle.js";

const OOM_KILL = "Out of memory: Killed process 41234 (python3) total-vm:812345612kB, anon-rss:1951234560kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:3893212kB oom_score_adj:0";

/** `dmesg` > dmesg.txt appended at two boots: the seconds go back at the second's first line. */
const TWO_BOOTS = [
  "[ 1601.002311] nvidia-nvlink: Nvlink Core is being initialized, major device number 510",
  "[ 1602.417725] nvidia-peermem: loading out-of-tree module taints kernel.",
  "[ 1604.880113] IPv6: ADDRCONF(NETDEV_CHANGE): ib0: link becomes ready",
  `[ 1843.309055] ${OOM_KILL}`,
  "[    3.201554] nvidia-peermem: loading out-of-tree module taints kernel.",
  "[   11.402201] NVRM: Xid (PCI:0000:18:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
  "",
].join("\n");

/**
 * `journalctl -k -o short-iso` of the first boot, whose second 0 was
 * 13:36:27.890945: each line's true time, truncated to the second
 * (1601.002311 s: 14:03:08.893256; 1602.417725 s: 14:03:10.308670; 1604.880113 s: 14:03:12.771058).
 */
const JOURNAL_FIRST_BOOT = [
  "2026-06-11T14:03:08+0000 gpu-node-3 kernel: nvidia-nvlink: Nvlink Core is being initialized, major device number 510",
  "2026-06-11T14:03:10+0000 gpu-node-3 kernel: nvidia-peermem: loading out-of-tree module taints kernel.",
  "2026-06-11T14:03:12+0000 gpu-node-3 kernel: IPv6: ADDRCONF(NETDEV_CHANGE): ib0: link becomes ready",
  "",
].join("\n");

function iso(us: number): string {
  return new Date(us / 1000).toISOString().replace("Z", `${String(us % 1000).padStart(3, "0")}Z`);
}

/** The dmesg file's records by line: their time (µs shown), or timeless. */
async function dmesgTimes(files: Record<string, string>): Promise<{ times: [number, string][]; origin: string }> {
  const dir = tempDir("kernel-boot");
  const root = writeTree(join(dir, "bundle"), files);
  const db = join(dir, "i.db");
  await ingest({ db, paths: [root] });
  return withDb(db, (h) => {
    const source = listIngestedSources(h).find((s) => s.path.endsWith("dmesg.txt"))!;
    const events = [...iterateEvents(h)].filter((e) => e.sourceId === source.id).sort((a, b) => a.line - b.line);
    const times = events.map((e): [number, string] => [e.line, e.timeless === true ? "timeless" : `${iso(e.tsUs)}${e.tsInferred ? " inferred" : ""}`]);
    return { times, origin: source.timeOrigin ?? "" };
  });
}

test("plain dmesg beside journalctl -k: the first boot's records take boot + seconds; the second boot's stay timeless", async () => {
  const { times, origin } = await dmesgTimes({ "gpu-node-3/dmesg.txt": TWO_BOOTS, "gpu-node-3/journalctl-k.txt": JOURNAL_FIRST_BOOT });
  // The peermem line is in both boots: it pairs neither. nvlink: 14:03:08 - 1601.002311 s = 13:36:26.997689; IPv6:
  // 14:03:12 - 1604.880113 s = 13:36:27.119887, within 1 s of it: second 0 is the later, 13:36:27.119887.
  assert.deepEqual(times, [
    [1, "2026-06-11T14:03:08.122198Z"],
    [2, "2026-06-11T14:03:09.537612Z"],
    [3, "2026-06-11T14:03:12.000000Z"],
    [4, "2026-06-11T14:07:10.428942Z"],
    [5, "timeless"],
    [6, "timeless"],
  ]);
  assert.match(origin, /4 kernel record\(s\) stamped in seconds since boot took their boot's wall time \(run 1: second 0 at 2026-06-11T13:36:27\.119887Z, from 2 line\(s\) also in \S*journalctl-k\.txt, agreeing within 1\.0 s; run 2: timeless: none of its lines is in a dated kernel log of its host\)/);
  assert.match(origin, /2 record\(s\) in a file with no dated line are timeless/);
});

test("one line in both logs is no anchor, and a dated kernel log of another machine dates nothing", async () => {
  const oneLine = JOURNAL_FIRST_BOOT.split("\n").slice(2).join("\n");
  const { times, origin } = await dmesgTimes({ "gpu-node-3/dmesg.txt": TWO_BOOTS, "gpu-node-3/journalctl-k.txt": oneLine });
  assert.ok(times.every(([, t]) => t === "timeless"));
  assert.match(origin, /run 1: timeless: one line only is also in a dated kernel log \(\S*journalctl-k\.txt\), and one line is no anchor/);
  const other = await dmesgTimes({ "gpu-node-3/dmesg.txt": TWO_BOOTS, "gpu-node-4/journalctl-k.txt": JOURNAL_FIRST_BOOT.replaceAll("gpu-node-3", "gpu-node-4") });
  assert.ok(other.times.every(([, t]) => t === "timeless"));
  assert.doesNotMatch(other.origin, /kernel record/, "no dated kernel log of its host: nothing said of runs");
});

test("journalctl -o json: _SOURCE_MONOTONIC_TIMESTAMP pairs a line by its stamp, a message repeated in the ring included", async () => {
  // Second 0 at 13:36:27.890945 (1781184987890945 µs); journald read each line 2 ms and 1.5 ms after the kernel wrote it.
  const entry = (realtimeUs: number, sinceBootUs: number, message: string) =>
    JSON.stringify({ __CURSOR: "s=9f;i=1", __REALTIME_TIMESTAMP: String(realtimeUs), __MONOTONIC_TIMESTAMP: String(sinceBootUs + 2100), _BOOT_ID: "3c2f", _HOSTNAME: "gpu-node-3", _TRANSPORT: "kernel", _SOURCE_MONOTONIC_TIMESTAMP: String(sinceBootUs), MESSAGE: message });
  const cleanup = "NVRM: Xid (PCI:0000:18:00): 45, pid=41234, name=python3, Ch 00000010";
  const journal = [entry(1781184987890945 + 1838002114 + 2000, 1838002114, cleanup), entry(1781184987890945 + 1843621870 + 1500, 1843621870, cleanup), ""].join("\n");
  const dmesg = [`[ 1838.002114] ${cleanup}`, `[ 1843.309055] ${OOM_KILL}`, `[ 1843.621870] ${cleanup}`, ""].join("\n");
  const { times, origin } = await dmesgTimes({ "gpu-node-3/dmesg.txt": dmesg, "gpu-node-3/journal.json": journal });
  // The estimates: 13:36:27.892945 and 13:36:27.892445; second 0 is the later.
  assert.deepEqual(times, [
    [1, "2026-06-11T14:07:05.895059Z"],
    [2, "2026-06-11T14:07:11.202000Z"],
    [3, "2026-06-11T14:07:11.514815Z"],
  ]);
  assert.match(origin, /second 0 at 2026-06-11T13:36:27\.892945Z, from 2 line\(s\) also in \S*journal\.json/);
});

/** A plain dmesg file's lines as the parse marks them: `[seconds, message]` in file order. */
function plainLines(lines: readonly [number, string][]): PlainKernelLine[] {
  const runs = new KernelRuns();
  return lines.map(([s, message]) => {
    const run = runs.next(s * 1e6, message);
    return { run, afterSleep: runs.runs[run]!.afterSleep, sinceBootUs: s * 1e6, message };
  });
}

const BOOT_US = Date.UTC(2026, 5, 11, 13, 36, 27) * 1000;

test("a suspend: dmesg -T dates the lines before the machine slept only; journalctl -k dates the stretch after it by its own lines", () => {
  const plain = plainLines([
    [100, "a"],
    [200, "b"],
    [300, "PM: suspend entry (deep)"],
    [300.5, "ACPI: PM: Waking up from system sleep state S3"],
    [301, "PM: suspend exit"],
    [400, "c"],
    [500, "d"],
  ]);
  assert.deepEqual(plain.map((p) => [p.run, p.afterSleep]), [[0, false], [0, false], [1, true], [1, true], [1, true], [2, true], [2, true]]);
  // `dmesg -T` adds one boot time to every line: after the sleep (3600 s), its times are 3600 s early.
  const ctime = { path: "dmesg-T.txt", lines: [100, 200, 400, 500].map((s, i) => ({ wallUs: BOOT_US + s * 1e6, sinceBootUs: null, message: "abcd"[i]!, stamp: "ctime" as const })) };
  const [before, sleeping, after] = kernelRunAnchors(plain, [ctime]);
  assert.deepEqual(before, { bootUs: BOOT_US, origin: "second 0 at 2026-06-11T13:36:27.000000Z, from 2 line(s) also in dmesg-T.txt, agreeing within 1.0 s" });
  assert.equal(sleeping!.bootUs, null);
  assert.deepEqual(after, { bootUs: null, origin: "timeless: the machine slept before it, so the 2 line(s) of it in dmesg -T have wrong times (dmesg(1)), and no journald or syslog line of it is at hand" });
  // journald stamps each line when it reads it: after the sleep, second 0 has moved by the hour slept.
  const journal = { path: "journalctl-k.txt", lines: [400, 500].map((s, i) => ({ wallUs: BOOT_US + 3600e6 + s * 1e6, sinceBootUs: null, message: "cd"[i]!, stamp: "received" as const })) };
  assert.equal(kernelRunAnchors(plain, [ctime, journal])[2]!.bootUs, BOOT_US + 3600e6);
});

test("anchors that cannot be one boot leave the run timeless: a pair earlier than the rest, dmesg -T lines apart", () => {
  const plain = plainLines([
    [10, "a"],
    [20, "b"],
    [30, "c"],
  ]);
  const received = (wall: readonly number[]) => ({ path: "kern.log", lines: wall.map((w, i) => ({ wallUs: BOOT_US + w * 1e6, sinceBootUs: null, message: "abc"[i]!, stamp: "received" as const })) });
  // a read 40 s late (journald's backlog at its start): left out, b and c agree.
  assert.deepEqual(kernelRunAnchors(plain, [received([50, 20, 30])])[0], {
    bootUs: BOOT_US,
    origin: "second 0 at 2026-06-11T13:36:27.000000Z, from 2 line(s) also in kern.log, agreeing within 1.0 s; 1 line(s) that journald or syslog read later are not used",
  });
  // a gives a boot 2 days before b and c: a line of another boot, which no later reading explains.
  assert.deepEqual(kernelRunAnchors(plain, [received([10 - 172800, 20, 30])])[0], { bootUs: null, origin: "timeless: the boot times its 3 lines in dated kernel logs give disagree (the earliest two by 172800.0 s)" });
  const ctime = { path: "dmesg-T.txt", lines: [10, 20, 35].map((s, i) => ({ wallUs: BOOT_US + s * 1e6, sinceBootUs: null, message: "abc"[i]!, stamp: "ctime" as const })) };
  assert.deepEqual(kernelRunAnchors(plain, [ctime])[0], { bootUs: null, origin: "timeless: dmesg -T's lines give boot times up to 5.0 s apart, which one boot cannot" });
});
