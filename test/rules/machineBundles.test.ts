// Hand-written bundles of what a machine and its orchestrator say beside the
// servers' logs (test/bundles/README.md): the kernel's log in its forms
// (plain dmesg, dmesg -T, journalctl -k, kern.log), Kubernetes' view (kubectl
// describe, get events, get pods, objects as JSON), Slurm's and Ray's lines —
// each a death of a machine, a pod or a step, never a rank's, and the
// silence of the ranks on it that it explains.

import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AnalysisReport } from "../../analyzer/rules/finding.js";
import { analyzeCli, bundleVariant, bundle, bundleText, cleanUp, violated } from "./handBundles.js";

after(cleanUp);

test("node OOM kill: the kernel's kill is a critical death on the prefill machine, at no time of ours; the pod's warnings are no failure", async () => {
  const { report } = await bundle("node-oom-kill");
  const [death] = violated(report, "process-failure");
  assert.ok(death);
  assert.equal(violated(report, "process-failure").length, 1, "dmesg's kill and kubectl's OOMKilling event are one cause");
  assert.equal(death.severity, "critical");
  assert.deepEqual(death.ranks, ["machine gpu-node-3"], "a finding on the machine: the kernel names a process, not a rank");
  assert.equal(death.title, "On machine gpu-node-3, a process died: python3 (pid 41234) killed by the kernel's OOM killer");
  // dmesg's seconds since boot and kubectl's ages date nothing: the finding states no time.
  assert.equal(death.ts, undefined);
  assert.match(death.explanation, /at an unknown time \(no line of its file is dated\)/);
  assert.deepEqual(death.witness.map((w) => w.text.match(/Out of memory: Killed process 41234/) !== null), [true, true]);
  assert.equal(report.suspects[0]?.cause, "process-crash");
  const [lost] = violated(report, "transport-failure");
  assert.equal(lost!.count, 12);
  // Xid 45 (the driver's cleanup of the killed process's channels) and the readiness probe's 503s are warnings.
  assert.ok(!report.findings.some((f) => f.verdict === "violated" && /Xid|probe/.test(f.title)));
  // The prefill's log stops at 14:07:10; the kill has no time of ours: it may be the cause, or come later, so the silence still weakens.
  const silence = report.coverage.gaps.find((g) => g.kind === "time-gap");
  assert.match(silence?.detail ?? "", /a process of machine gpu-node-3 died at an unknown time \(.*dmesg\.txt:6: python3 \(pid 41234\) killed by the kernel's OOM killer\), which may explain it$/);
  assert.equal(silence?.explainedBy, undefined);
  assert.ok((silence?.weakens ?? []).length > 0);
});

test("node OOM kill dated by journalctl -k at the silence's start: the machine's death explains the prefill's silence", () => {
  // `journalctl -k -o short-iso`, as the operator would take it instead of plain dmesg.
  const kernelLog = [
    "2026-06-11T14:07:11+0000 gpu-node-3 kernel: python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0",
    "2026-06-11T14:07:11+0000 gpu-node-3 kernel: Out of memory: Killed process 41234 (python3) total-vm:812345612kB, anon-rss:1951234560kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:3893212kB oom_score_adj:0",
    "",
  ].join("\n");
  const dir = bundleVariant("node-oom-kill", "node-oom-kill", { remove: ["gpu-node-3/dmesg.txt", "kubectl-get-events.txt"], write: { "gpu-node-3/kernel.log": kernelLog } });
  const r = analyzeCli(dir, "--json");
  const report = JSON.parse(r.stdout) as AnalysisReport;
  const silence = report.coverage.gaps.find((g) => g.kind === "time-gap");
  assert.match(silence?.explainedBy ?? "", /^machine gpu-node-3 crashed: python3 \(pid 41234\) killed by the kernel's OOM killer/);
  assert.match(silence?.detail ?? "", /died at 2026-06-11T14:07:11\.000Z .*which explains it$/);
  const [death] = violated(report, "process-failure");
  assert.match(death!.explanation, /the crash explains the silence/);
});

test("node OOM kill in Ubuntu's kern.log (syslog's stamp, no year): dated with the year of the machine's SGLang log, it explains the prefill's silence", () => {
  const kernLog = [
    "Jun 11 14:07:11 gpu-node-3 kernel: [ 1843.308145] python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0",
    "Jun 11 14:07:11 gpu-node-3 kernel: [ 1843.309055] Out of memory: Killed process 41234 (python3) total-vm:812345612kB, anon-rss:1951234560kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:3893212kB oom_score_adj:0",
    "",
  ].join("\n");
  const dir = bundleVariant("node-oom-kill", "node-oom-kill", { remove: ["gpu-node-3/dmesg.txt", "kubectl-get-events.txt"], write: { "gpu-node-3/kern.log": kernLog } });
  const report = JSON.parse(analyzeCli(dir, "--json").stdout) as AnalysisReport;
  const [death] = violated(report, "process-failure");
  assert.equal(death!.ts, "2026-06-11T14:07:11.000Z");
  const silence = report.coverage.gaps.find((g) => g.kind === "time-gap");
  assert.match(silence?.explainedBy ?? "", /^machine gpu-node-3 crashed: python3 \(pid 41234\) killed by the kernel's OOM killer/);
});

test("a GPU fallen off the bus (dmesg -T's Xid 79) beside the decode's lost transfers: one transport failure on the machine, its falsification the GPU's own checks", () => {
  const dmesg = [
    "[Thu Jun 11 13:58:02 2026] nvidia-nvlink: Nvlink Core is being initialized, major device number 510",
    "[Thu Jun 11 14:07:24 2026] NVRM: Xid (PCI:0000:18:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
    "[Thu Jun 11 14:07:24 2026] NVRM: GPU 0000:18:00.0: GPU has fallen off the bus.",
    "",
  ].join("\n");
  const dir = bundleVariant("node-oom-kill/sglang-decode-0", "gpu-node-9", { remove: ["kubectl-describe-sglang-decode-0.txt"], write: { "dmesg-T.txt": dmesg } });
  const report = JSON.parse(analyzeCli(dir, "--json").stdout) as AnalysisReport;
  const [lost] = violated(report, "transport-failure");
  assert.deepEqual(lost!.ranks, ["decode/tp0", "machine gpu-node-9"]);
  assert.match(lost!.title, /^Transport failure on decode\/tp0 and machine gpu-node-9: /, "a rank and a machine, not \"2 ranks\"");
  assert.match(lost!.title, /Xid 79 on GPU PCI:0000:18:00: GPU has fallen off the bus/);
  assert.match(lost!.falsify, /nvidia-smi -q.*rerun the load on another machine/);
});

test("a node gone NotReady (kubectl describe node) is the machine's own failure, titled so, not a process's", () => {
  const node = [
    "Name:               gpu-node-3",
    "Roles:              <none>",
    "Labels:             kubernetes.io/hostname=gpu-node-3",
    "CreationTimestamp:  Mon, 08 Jun 2026 09:10:02 +0000",
    "Unschedulable:      false",
    "Conditions:",
    "  Type                 Status  LastHeartbeatTime                 LastTransitionTime                Reason                       Message",
    "  ----                 ------  -----------------                 ------------------                ------                       -------",
    "  MemoryPressure       False   Thu, 11 Jun 2026 14:07:31 +0000   Mon, 08 Jun 2026 09:12:31 +0000   KubeletHasSufficientMemory   kubelet has sufficient memory available",
    "  Ready                False   Thu, 11 Jun 2026 14:07:31 +0000   Thu, 11 Jun 2026 14:07:12 +0000   KubeletNotReady              PLEG is not healthy: pleg was last seen active 3m2s ago; threshold is 3m0s",
    "Addresses:",
    "  InternalIP:  10.0.3.17",
    "  Hostname:    gpu-node-3",
    "Events:              <none>",
    "",
  ].join("\n");
  const dir = bundleVariant("node-oom-kill", "node-oom-kill", { remove: ["gpu-node-3/dmesg.txt", "kubectl-get-events.txt"], write: { "gpu-node-3/kubectl-describe-node.txt": node } });
  const report = JSON.parse(analyzeCli(dir, "--json").stdout) as AnalysisReport;
  const [down] = violated(report, "process-failure");
  assert.deepEqual(down!.ranks, ["machine gpu-node-3"]);
  assert.equal(down!.title, "Machine gpu-node-3 failed: node not ready (Ready False, KubeletNotReady): PLEG is not healthy: pleg was last seen active 3m2s ago; threshold is 3m0s");
});

test("a segfault the kernel reports on the prefill's machine and the prefill's own dump: one finding on the rank and the machine, each named as what it is", () => {
  const dmesg = [
    "[Thu Jun 11 14:07:11 2026] python3[41234]: segfault at 0 ip 00007f3a9c2b1e40 sp 00007ffd4c1a2b30 error 4 in libmooncake_transfer_engine.so[7f3a9c200000+3b1000]",
    "",
  ].join("\n");
  const prefill = `${bundleText("node-oom-kill", "gpu-node-3/sglang-prefill.log")}Fatal Python error: Segmentation fault\n\nThread 0x00007f2b8effd640 (most recent call first):\n  File "/usr/lib/python3.12/threading.py", line 359 in wait\n`;
  const dir = bundleVariant("node-oom-kill", "node-oom-kill", {
    remove: ["gpu-node-3/dmesg.txt", "kubectl-get-events.txt"],
    write: { "gpu-node-3/dmesg-T.txt": dmesg, "gpu-node-3/sglang-prefill.log": prefill },
  });
  const report = JSON.parse(analyzeCli(dir, "--json").stdout) as AnalysisReport;
  const crash = violated(report, "process-failure").find((f) => f.ranks?.includes("machine gpu-node-3"));
  assert.deepEqual(crash?.ranks, ["machine gpu-node-3", "prefill/tp0"]);
  assert.match(crash!.title, /^prefill\/tp0 died, and a process on machine gpu-node-3: /);
});

test("kubectl cluster-info dump's events.json and pods.json beside the logs: the node's OOM kill and the container's at their stated time, on the machine and the pod", () => {
  // Typed lists as cluster-info dump writes them (Go's field order, four-space indentation), only the fields read kept.
  const events = JSON.stringify({
    kind: "EventList", apiVersion: "v1", metadata: { resourceVersion: "812401" },
    items: [{
      metadata: { name: "gpu-node-3.17d8a1f2c3b4a5e6", namespace: "default", uid: "0c9d6f3e-8a41-4d2b-9e57-3f1a2b4c5d6e", creationTimestamp: "2026-06-11T14:07:11Z" },
      involvedObject: { kind: "Node", name: "gpu-node-3", uid: "gpu-node-3" },
      reason: "OOMKilling",
      message: "Out of memory: Killed process 41234 (python3) total-vm:812345612kB, anon-rss:1951234560kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:3893212kB oom_score_adj:0",
      source: { component: "kernel-monitor", host: "gpu-node-3" },
      firstTimestamp: "2026-06-11T14:07:11Z", lastTimestamp: "2026-06-11T14:07:11Z", count: 1, type: "Warning", eventTime: null,
    }],
  }, null, 4);
  const pods = JSON.stringify({
    kind: "PodList", apiVersion: "v1", metadata: { resourceVersion: "812401" },
    items: [{
      metadata: { name: "sglang-prefill-0", namespace: "llm", uid: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d" },
      spec: { nodeName: "gpu-node-3" },
      status: {
        phase: "Running",
        containerStatuses: [{
          name: "sglang",
          state: { running: { startedAt: "2026-06-11T14:07:40Z" } },
          lastState: { terminated: { exitCode: 137, reason: "OOMKilled", startedAt: "2026-06-11T13:58:04Z", finishedAt: "2026-06-11T14:07:11Z" } },
          ready: true, restartCount: 1,
        }],
      },
    }],
  }, null, 4);
  const dir = bundleVariant("node-oom-kill", "cluster-dump", {
    remove: ["gpu-node-3/dmesg.txt", "kubectl-get-events.txt", "sglang-decode-0/kubectl-describe-sglang-decode-0.txt"],
    write: { "nodes.json": '{\n    "kind": "NodeList",\n    "apiVersion": "v1",\n    "metadata": {},\n    "items": []\n}\n' },
  });
  mkdirSync(join(dir, "llm"));
  writeFileSync(join(dir, "llm/events.json"), `${events}\n`);
  writeFileSync(join(dir, "llm/pods.json"), `${pods}\n`);
  const r = analyzeCli(dir, "--json");
  assert.equal(r.status, 1, r.stderr);
  const report = JSON.parse(r.stdout) as AnalysisReport;
  const deaths = violated(report, "process-failure");
  const byPlace = new Map(deaths.map((f) => [f.ranks?.join(","), f]));
  const node = byPlace.get("machine gpu-node-3");
  const pod = byPlace.get("pod sglang-prefill-0");
  assert.equal(node?.severity, "critical");
  assert.equal(node?.ts, "2026-06-11T14:07:11.000Z", "the event states its time, where kubectl's table gave only an age");
  assert.match(node!.title, /^On machine gpu-node-3, a process died: the node's OOM killer: Out of memory: Killed process 41234/);
  assert.equal(pod?.ts, "2026-06-11T14:07:11.000Z");
  assert.match(pod!.title, /container sglang terminated: OOMKilled \(exit code 137\); restarted once$/);
  assert.ok(!report.coverage.gaps.some((g) => g.kind === "clock-offset" && /\bllm\b/.test(g.detail)), "a folder of namespace-wide lists is no machine's clock");
});

/**
 * node-oom-kill collected another way: the prefill's log in its pod's folder, the machine's `dmesg -T` (a dated OOM kill)
 * in the machine's, and `placement` (the bundle path and text of what says which machine the pod ran on).
 */
function podOnMachine(placement: [string, string]): AnalysisReport {
  const dmesg = [
    "[Thu Jun 11 14:07:11 2026] python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0",
    "[Thu Jun 11 14:07:11 2026] Out of memory: Killed process 41234 (python3) total-vm:812345612kB, anon-rss:1951234560kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:3893212kB oom_score_adj:0",
    "",
  ].join("\n");
  const dir = bundleVariant("node-oom-kill", "pods-and-nodes", { remove: ["gpu-node-3/dmesg.txt", "kubectl-get-events.txt"], write: { "gpu-node-3/dmesg-T.txt": dmesg } });
  mkdirSync(join(dir, "sglang-prefill-0"));
  renameSync(join(dir, "gpu-node-3/sglang-prefill.log"), join(dir, "sglang-prefill-0/sglang-prefill.log"));
  writeFileSync(join(dir, placement[0]), placement[1]);
  return JSON.parse(analyzeCli(dir, "--json").stdout) as AnalysisReport;
}

function prefillSilence(report: AnalysisReport): AnalysisReport["coverage"]["gaps"][number] | undefined {
  return report.coverage.gaps.find((g) => g.kind === "time-gap" && g.ranks?.includes("prefill/tp0"));
}

test("pod logs in the pod's folder, the machine's dmesg -T in its own: the pod's Node: joins them, and the machine's OOM kill explains the pod's silence", () => {
  const describe = [
    "Name:             sglang-prefill-0",
    "Namespace:        default",
    "Priority:         0",
    "Node:             gpu-node-3/10.0.3.17",
    "Start Time:       Thu, 11 Jun 2026 13:58:02 +0000",
    "Status:           Running",
    "Containers:",
    "  sglang:",
    "    Container ID:  containerd://9c1f2b7e9a4d",
    "    Image:         lmsysorg/sglang:v0.5.14-cu129",
    "    State:          Running",
    "      Started:      Thu, 11 Jun 2026 13:58:10 +0000",
    "    Ready:          False",
    "    Restart Count:  0",
    "Events:            <none>",
    "",
  ].join("\n");
  const silence = prefillSilence(podOnMachine(["sglang-prefill-0/kubectl-describe-sglang-prefill-0.txt", describe]));
  assert.ok(silence, "the prefill pod's log stops");
  assert.match(silence!.explainedBy ?? "", /^machine gpu-node-3 crashed: python3 \(pid 41234\) killed by the kernel's OOM killer/);
});

test("kubectl get pods -o wide beside the bundle: its NODE column joins the pod to its machine the same way", () => {
  const pods = [
    "NAME               READY   STATUS    RESTARTS   AGE   IP            NODE         NOMINATED NODE   READINESS GATES",
    "sglang-decode-0    1/1     Running   0          12m   10.244.3.17   gpu-node-7   <none>           <none>",
    "sglang-prefill-0   0/1     Running   0          12m   10.244.1.9    gpu-node-3   <none>           <none>",
    "",
  ].join("\n");
  const silence = prefillSilence(podOnMachine(["kubectl-get-pods.txt", pods]));
  assert.match(silence?.explainedBy ?? "", /^machine gpu-node-3 crashed: python3 \(pid 41234\) killed by the kernel's OOM killer/);
});

test("Slurm OOM kill: srun's and slurmstepd's lines are one critical death of the step and of node-3's task, at no time of ours", async () => {
  const { report } = await bundle("slurm-oom-kill");
  const deaths = violated(report, "process-failure");
  assert.equal(deaths.length, 1, "slurmstepd's count of OOM kills and srun's report of the task are one failure");
  const [death] = deaths;
  assert.equal(death!.severity, "critical");
  // The lines name a Slurm step and a node with its task, never a TP rank of the server.
  assert.deepEqual(death!.ranks, ["Slurm step 1234.0", "machine node-3"]);
  assert.equal(death!.title, "On Slurm step 1234.0 and machine node-3, a process died: Slurm step 1234.0: 1 task process killed by the step's cgroup OOM killer");
  assert.equal(death!.ts, undefined, "no Slurm line here states a time");
  assert.deepEqual(death!.witness.map((w) => w.text), [
    "slurmstepd: error: Detected 1 oom_kill event in StepId=1234.0. Some of the step tasks have been OOM Killed.",
    "srun: error: node-3: task 0: Out Of Memory",
  ]);
  assert.equal(report.suspects[0]?.cause, "process-crash");
  assert.equal(violated(report, "transport-failure")[0]?.count, 12);
  // srun's teardown line is no failure of its own.
  assert.ok(!report.findings.some((f) => f.verdict === "violated" && /Job step aborted/.test(f.title)));
  // node-3's folder holds the prefill's log, silent after 14:07:10; the task's death on node-3 at no time of ours may explain it.
  const silence = report.coverage.gaps.find((g) => g.kind === "time-gap");
  assert.match(silence?.detail ?? "", /a process of machine node-3 died at an unknown time \(.*slurm-1234\.out:2: Slurm task 0 on node-3: Out Of Memory \(the step's cgroup OOM killer\)\), which may explain it$/);
  assert.equal(silence?.explainedBy, undefined);
});

test("Ray OOM kill: the raylet's summary is a critical death of the machine at 10.0.3.17, dated by its prefix, which explains the prefill's silence", async () => {
  const { report } = await bundle("ray-oom-kill");
  const [death, ...more] = violated(report, "process-failure");
  assert.equal(more.length, 0);
  assert.equal(death!.severity, "critical");
  // The line names an address, never a rank: the finding is the machine's.
  assert.deepEqual(death!.ranks, ["machine 10.0.3.17"]);
  assert.equal(death!.title, "On machine 10.0.3.17, a process died: Ray on 10.0.3.17: 1 worker(s) killed by its memory monitor (OOM), 0 crashed for other reasons");
  assert.equal(death!.ts, "2026-06-11T14:07:11.445Z");
  assert.equal(report.suspects[0]?.cause, "process-crash");
  assert.equal(violated(report, "transport-failure")[0]?.count, 12);
  // The folder named by the node's address holds the prefill's log, silent from 14:07:10: the kill a second later explains it.
  const silence = report.coverage.gaps.find((g) => g.kind === "time-gap");
  assert.match(silence?.explainedBy ?? "", /^machine 10\.0\.3\.17 crashed: Ray on 10\.0\.3\.17: 1 worker\(s\) killed by its memory monitor \(OOM\)/);
});

test("node OOM kill in plain dmesg, dated by the machine's journalctl -k: the kill is placed at its time and explains the prefill's silence", async () => {
  const { report } = await bundle("node-oom-anchored");
  const [death, ...more] = violated(report, "process-failure");
  assert.equal(more.length, 0);
  assert.equal(death!.severity, "critical");
  assert.deepEqual(death!.ranks, ["machine gpu-node-3"]);
  // journalctl -k (short-iso) holds two lines of the ring that dmesg.txt holds too, read at once: 14:03:10 - 1602.417725 s and
  // 14:03:12 - 1604.880113 s put second 0 at 13:36:27.582275 (the later); the kill's 1843.309055 s is 14:07:10.891330.
  assert.equal(death!.ts, "2026-06-11T14:07:10.891Z");
  // The kill, timed, then the prefill's last line before its silence.
  assert.deepEqual(death!.witness.map((w) => [w.source.slice(w.source.indexOf("gpu-node-3/")), w.line, w.timeless === true]), [
    ["gpu-node-3/dmesg.txt", 9, false],
    ["gpu-node-3/sglang-prefill.log", 71, false],
  ]);
  assert.equal(report.suspects[0]?.cause, "process-crash");
  assert.equal(violated(report, "transport-failure")[0]?.count, 12);
  // The prefill's log stops at 14:07:10; the kill 0.9 s later is timed evidence of why, no longer a "may explain".
  const silence = report.coverage.gaps.find((g) => g.kind === "time-gap");
  assert.match(silence?.explainedBy ?? "", /^machine gpu-node-3 crashed: python3 \(pid 41234\) killed by the kernel's OOM killer \(.*dmesg\.txt:9\)$/);
  assert.match(silence?.detail ?? "", /died at 2026-06-11T14:07:10\.891Z \(.*dmesg\.txt:9: .*\), which explains it$/);
  assert.deepEqual(silence?.blinds, []);
  assert.match(death!.explanation, /the crash explains the silence/);
});
