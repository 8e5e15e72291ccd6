// What the orchestrator said of a pod: `kubectl describe pod` and `kubectl get
// events` (plain, `-o wide`, `-A`), written by hand in the shapes kubectl's
// printers produce (pkg/describe/describe.go describeContainerState and
// DescribeEvents; pkg/printers/internalversion/printers.go's event columns).

import { test } from "node:test";
import assert from "node:assert/strict";
import type { ParsedEvent } from "../../domain/event.js";
import { LogKind } from "../../domain/kinds.js";
import { detectFormat } from "../../ingest/formats/index.js";
import { kubectlDescribeNode } from "../../ingest/formats/kubectl/describeNode.js";
import { kubectlDescribePod, rfc1123Us } from "../../ingest/formats/kubectl/describePod.js";
import { kubectlEvents } from "../../ingest/formats/kubectl/getEvents.js";
import { kubectlPods } from "../../ingest/formats/kubectl/getPods.js";
import { parseWith, us } from "./sglangHarness.js";

const parse = parseWith;

/** A decode pod whose server was OOMKilled by its container's limit twice and is in back-off, then a prefill pod that segfaulted once. */
const DESCRIBE = `Name:             sglang-decode-0
Namespace:        default
Priority:         0
Node:             gpu-node-7/10.0.4.27
Start Time:       Thu, 11 Jun 2026 13:58:02 +0000
Status:           Running
Containers:
  sglang:
    Container ID:  containerd://3f1c2b7e9a4d
    Image:         lmsysorg/sglang:v0.5.14-cu129
    Port:          30000/TCP
    State:          Waiting
      Reason:       CrashLoopBackOff
    Last State:     Terminated
      Reason:       OOMKilled
      Exit Code:    137
      Started:      Thu, 11 Jun 2026 14:05:40 +0000
      Finished:     Thu, 11 Jun 2026 16:07:11 +0200
    Ready:          False
    Restart Count:  2
    Limits:
      memory:  200Gi
Conditions:
  Type              Status
  Ready             False 
Events:
  Type     Reason     Age                  From               Message
  ----     ------     ----                 ----               -------
  Normal   Scheduled  12m                  default-scheduler  Successfully assigned default/sglang-decode-0 to gpu-node-7
  Normal   Pulled     2m3s (x3 over 12m)   kubelet            Container image "lmsysorg/sglang:v0.5.14-cu129" already present on machine
  Warning  Unhealthy  2m30s (x4 over 9m)   kubelet            Liveness probe failed: Get "http://10.244.3.17:30000/health": context deadline exceeded (Client.Timeout exceeded while awaiting headers)
  Warning  BackOff    61s (x5 over 3m)     kubelet            Back-off restarting failed container sglang in pod sglang-decode-0_default(5b0c7a1e-2d3f-4e5a-9b8c-7d6e5f4a3b2c)


Name:             sglang-prefill-0
Namespace:        default
Node:             gpu-node-3/10.0.4.3
Containers:
  sglang:
    State:          Running
      Started:      Thu, 11 Jun 2026 14:08:02 +0000
    Last State:     Terminated
      Reason:       Error
      Exit Code:    139
      Started:      Thu, 11 Jun 2026 13:58:09 +0000
      Finished:     Thu, 11 Jun 2026 14:07:59 +0000
    Ready:          True
    Restart Count:  1
Events:            <none>`;

test("kubectl describe pod: an OOMKilled or non-zero termination is the pod's death, dated by Finished; restarts are said; the Events table dates nothing", () => {
  assert.equal(detectFormat(DESCRIBE).name, "kubectl-describe-pod");
  const { events, issues } = parse(kubectlDescribePod, DESCRIBE, "bundle-folder");
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.line, e.kind, e.host, e.role, e.attrs?.failureClass ?? e.attrs?.level]),
    [
      [12, LogKind.podEvent, "sglang-decode-0", "decode", "warning"],
      [14, LogKind.crash, "sglang-decode-0", "decode", "container-oom"],
      [29, LogKind.podEvent, "sglang-decode-0", "decode", "info"],
      [30, LogKind.podEvent, "sglang-decode-0", "decode", "info"],
      [31, LogKind.podEvent, "sglang-decode-0", "decode", "warning"],
      [32, LogKind.podEvent, "sglang-decode-0", "decode", "warning"],
      [40, LogKind.podEvent, "sglang-prefill-0", "prefill", "info"],
      [42, LogKind.crash, "sglang-prefill-0", "prefill", "segfault"],
    ],
  );
  const oom = events[1]!;
  assert.equal(oom.tsUs, us("2026-06-11T14:07:11Z"), "Finished, in the offset it states");
  assert.equal(oom.tsInferred, undefined);
  assert.deepEqual(oom.attrs, {
    scope: "pod", container: "sglang", stateOf: "last", state: "Terminated", reason: "OOMKilled", exitCode: 137, restartCount: 2,
    what: "container sglang terminated", error: "container sglang terminated: OOMKilled (exit code 137); restarted 2 times", fatal: true, failureClass: "container-oom", nodeName: "gpu-node-7",
  });
  assert.equal(oom.text.split("\n").length, 5, "the state's block is the record");
  assert.equal(events[0]!.attrs?.reason, "CrashLoopBackOff");
  const backOff = events[5]!;
  assert.deepEqual([backOff.attrs?.reason, backOff.attrs?.count, backOff.attrs?.from], ["BackOff", 5, "kubelet"]);
  for (const row of events.slice(2, 6)) assert.equal(row.tsInferred, true, `line ${row.line}: an age dates nothing`);
  assert.equal(events[7]!.attrs?.error, "container sglang terminated: Error (exit code 139); restarted once");
});

test("kubectl describe pod of an evicted pod: the eviction is the pod's death, with the kubelet's message and no time", () => {
  const evicted = [
    "Name:             sglang-prefill-1",
    "Namespace:        default",
    "Node:             gpu-node-4/10.0.4.4",
    "Status:           Failed",
    "Reason:           Evicted",
    "Message:          The node was low on resource: memory. Threshold quantity: 100Mi, available: 91232Ki. Container sglang was using 203123456Ki, request is 0, has larger consumption of memory. ",
    "IP:               10.244.4.9",
    "Containers:",
    "  sglang:",
    "    State:          Terminated",
    "      Reason:       ContainerStatusUnknown",
    "      Message:      The container could not be located when the pod was terminated",
    "      Exit Code:    137",
    "      Started:      Mon, 01 Jan 0001 00:00:00 +0000",
    "      Finished:     Mon, 01 Jan 0001 00:00:00 +0000",
    "    Restart Count:  0",
    "Events:           <none>",
  ].join("\n");
  assert.equal(detectFormat(evicted).name, "kubectl-describe-pod");
  const { events, issues } = parse(kubectlDescribePod, evicted);
  assert.deepEqual(issues, []);
  assert.deepEqual(events.map((e) => [e.line, e.kind, e.attrs?.failureClass, e.host]), [
    [5, LogKind.crash, "evicted", "sglang-prefill-1"],
    [10, LogKind.crash, "crash", "sglang-prefill-1"],
  ]);
  assert.equal(events[0]!.attrs?.error, "pod evicted: The node was low on resource: memory. Threshold quantity: 100Mi, available: 91232Ki. Container sglang was using 203123456Ki, request is 0, has larger consumption of memory.");
  assert.equal(events[0]!.text.split("\n").length, 2);
  assert.equal(events[0]!.tsInferred, true);
  assert.equal(events[1]!.tsInferred, true, "Go's zero time is no time");
});

test("kubectl describe pod: a pod lost with its node, ended by its node's shutdown or refused at admission is the pod's end, with the message; another reason is none", () => {
  const pod = (reason: string, message: string): string =>
    [
      "Name:             sglang-decode-1",
      "Namespace:        llm",
      "Node:             gpu-node-5/10.0.4.5",
      "Status:           Failed",
      `Reason:           ${reason}`,
      `Message:          ${message}`,
      "Containers:",
      "  sglang:",
      "    State:          Running",
      "      Started:      Thu, 11 Jun 2026 13:58:02 +0000",
      "    Restart Count:  0",
      "Events:           <none>",
    ].join("\n");
  const cases: Array<[string, string, string, string]> = [
    ["NodeLost", "Node gpu-node-5 which was running pod sglang-decode-1 is unresponsive", "node-failure", "pod lost: its node stopped answering: Node gpu-node-5 which was running pod sglang-decode-1 is unresponsive"],
    ["Terminated", "Pod was terminated in response to imminent node shutdown.", "node-shutdown", "pod terminated by its node's shutdown: Pod was terminated in response to imminent node shutdown."],
    ["Shutdown", "Node is shutting, evicting pods", "node-shutdown", "pod terminated by its node's shutdown: Node is shutting, evicting pods"],
    ["UnexpectedAdmissionError", "Allocate failed due to requested number of devices unavailable for nvidia.com/gpu. Requested: 8, Available: 7, which is unexpected", "admission", "pod refused at admission: Allocate failed due to requested number of devices unavailable for nvidia.com/gpu. Requested: 8, Available: 7, which is unexpected"],
  ];
  for (const [reason, message, failureClass, error] of cases) {
    const { events, issues } = parse(kubectlDescribePod, pod(reason, message));
    assert.deepEqual(issues, [], reason);
    assert.deepEqual([events[0]!.kind, events[0]!.attrs?.reason, events[0]!.attrs?.failureClass, events[0]!.attrs?.fatal, events[0]!.attrs?.error], [LogKind.crash, reason, failureClass, true, error]);
    assert.deepEqual([events[1]!.kind, events[1]!.attrs?.state], [LogKind.podEvent, "Running"]);
  }
  // A pod-level reason kvrewind does not know is no death it claims.
  const { events } = parse(kubectlDescribePod, pod("NodeAffinity", "Pod Predicate NodeAffinity failed"));
  assert.ok(events.every((e) => e.kind !== LogKind.crash));
});

test("kubectl describe pod: RFC 1123 times with their offset", () => {
  assert.equal(rfc1123Us("Thu, 11 Jun 2026 16:07:11 +0200"), us("2026-06-11T14:07:11Z"));
  assert.equal(rfc1123Us("Thu, 11 Jun 2026 14:07:11 -0330"), us("2026-06-11T17:37:11Z"));
  assert.equal(rfc1123Us("11 Jun 2026 14:07:11"), null);
  assert.equal(rfc1123Us("Mon, 01 Jan 0001 00:00:00 +0000"), null);
});

const EVENTS = `LAST SEEN   TYPE      REASON       OBJECT                 MESSAGE
12m         Normal    Scheduled    pod/sglang-decode-0    Successfully assigned default/sglang-decode-0 to gpu-node-7
7m40s       Warning   OOMKilling   node/gpu-node-3        Out of memory: Killed process 41234 (python3) total-vm:812345612kB, anon-rss:1951234560kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:3893212kB oom_score_adj:0
5m          Warning   Evicted      pod/sglang-prefill-1   The node was low on resource: memory. Threshold quantity: 100Mi, available: 91232Ki. Container sglang was using 203123456Ki, request is 0, has larger consumption of memory.
61s         Warning   BackOff      pod/sglang-decode-0    Back-off restarting failed container sglang in pod sglang-decode-0_default(5b0c7a1e-2d3f-4e5a-9b8c-7d6e5f4a3b2c)
2m          Warning   FailedMount  pod/sglang-decode-1    MountVolume.SetUp failed for volume "dshm" : no space left on device`;

test("kubectl get events: OOMKilling and Evicted are deaths of the object named, other Warnings are warnings; no row is dated", () => {
  assert.equal(detectFormat(EVENTS).name, "kubectl-events");
  const { events, issues } = parse(kubectlEvents, EVENTS);
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.kind, e.host, e.role, e.attrs?.scope, e.attrs?.reason, e.attrs?.failureClass ?? e.attrs?.level]),
    [
      [LogKind.podEvent, "sglang-decode-0", "decode", "pod", "Scheduled", "info"],
      [LogKind.crash, "gpu-node-3", undefined, "machine", "OOMKilling", "host-oom"],
      [LogKind.crash, "sglang-prefill-1", "prefill", "pod", "Evicted", "evicted"],
      [LogKind.podEvent, "sglang-decode-0", "decode", "pod", "BackOff", "warning"],
      [LogKind.podEvent, "sglang-decode-1", "decode", "pod", "FailedMount", "warning"],
    ],
  );
  for (const ev of events) assert.equal(ev.tsInferred, true);
});

test("kubectl get events -A -o wide: the extra columns are read by their header's offsets, COUNT included", () => {
  const wide = [
    "NAMESPACE   LAST SEEN   TYPE      REASON      OBJECT                SUBOBJECT                  SOURCE                MESSAGE                                                                FIRST SEEN   COUNT   NAME",
    "default     61s         Warning   BackOff     pod/sglang-decode-0   spec.containers{sglang}    kubelet, gpu-node-7   Back-off restarting failed container sglang in pod sglang-decode-0     3m           5       sglang-decode-0.17f3c2a1b9e8d7c6",
    "default     7m          Warning   Unhealthy   pod/sglang-decode-0   spec.containers{sglang}    kubelet, gpu-node-7   Readiness probe failed: HTTP probe failed with statuscode: 503         7m32s        3       sglang-decode-0.17f3c2a1b9e8d7c7",
  ].join("\n");
  assert.equal(detectFormat(wide).name, "kubectl-events");
  const { events, issues } = parse(kubectlEvents, wide);
  assert.deepEqual(issues, []);
  assert.deepEqual(events.map((e) => [e.host, e.attrs?.reason, e.attrs?.count, e.attrs?.message]), [
    ["sglang-decode-0", "BackOff", 5, "Back-off restarting failed container sglang in pod sglang-decode-0"],
    ["sglang-decode-0", "Unhealthy", 3, "Readiness probe failed: HTTP probe failed with statuscode: 503"],
  ]);
});

test("kubectl output pasted with the terminal's line that ran it: still read as kubectl's, the command line kept as text and no error", () => {
  const describe = `root@bastion:~# kubectl describe pod sglang-decode-0 -n default\n${DESCRIBE}`;
  assert.equal(detectFormat(describe).name, "kubectl-describe-pod");
  const described = parse(kubectlDescribePod, describe);
  assert.deepEqual(
    described.events.filter((e) => e.kind === LogKind.crash).map((e) => [e.host, e.attrs?.failureClass]),
    parse(kubectlDescribePod, DESCRIBE).events.filter((e) => e.kind === LogKind.crash).map((e) => [e.host, e.attrs?.failureClass]),
  );
  const events = `$ kubectl get events -n default\n${EVENTS}`;
  assert.equal(detectFormat(events).name, "kubectl-events");
  const read = parse(kubectlEvents, events);
  assert.deepEqual(read.issues, []);
  assert.deepEqual(read.events.map((e) => e.kind), [LogKind.unparsed, ...parse(kubectlEvents, EVENTS).events.map((e) => e.kind)]);
  assert.equal(read.events[0]!.text, "$ kubectl get events -n default");
});

test("kubectl output pasted as a Markdown quote (`> ` before each line) reads as the same output", () => {
  const quote = (text: string): string => text.split("\n").map((l) => (l === "" ? ">" : `> ${l}`)).join("\n");
  const crashes = (events: ParsedEvent[]): unknown[] => events.filter((e) => e.kind === LogKind.crash).map((e) => [e.line, e.host, e.tsUs, e.attrs?.error]);
  assert.equal(detectFormat(quote(DESCRIBE)).name, "kubectl-describe-pod");
  const quoted = parse(kubectlDescribePod, quote(DESCRIBE));
  assert.deepEqual(quoted.issues, []);
  assert.deepEqual(crashes(quoted.events), crashes(parse(kubectlDescribePod, DESCRIBE).events));
  assert.equal(detectFormat(quote(NODE)).name, "kubectl-describe-node");
  assert.deepEqual(parse(kubectlDescribeNode, quote(NODE)).events.map((e) => [e.kind, e.tsUs]), parse(kubectlDescribeNode, NODE).events.map((e) => [e.kind, e.tsUs]));
  assert.equal(detectFormat(quote(`$ kubectl get events -n default\n${EVENTS}`)).name, "kubectl-events");
  assert.deepEqual(parse(kubectlEvents, quote(EVENTS)).events.map((e) => [e.kind, e.attrs?.reason]), parse(kubectlEvents, EVENTS).events.map((e) => [e.kind, e.attrs?.reason]));
});

test("kubectl describe pod pasted from below its name (the paste's window cut the head) is still the pod's description", () => {
  const cut = DESCRIBE.split("\n").slice(3).join("\n");
  assert.match(cut, /^Node: /);
  assert.equal(detectFormat(cut).name, "kubectl-describe-pod");
  const { events } = parse(kubectlDescribePod, cut, "sglang-decode-0");
  assert.deepEqual(events.filter((e) => e.kind === LogKind.crash).map((e) => e.attrs?.failureClass), ["container-oom", "segfault"]);
  // Fields like describePod's at the head of another file do not make it one: its containers and their images must follow.
  assert.notEqual(detectFormat("Status: Running\nNode: gpu-node-3\nthe server started\n").name, "kubectl-describe-pod");
});

/** `kubectl get pods -o wide` (tabwriter, three spaces after each column's widest cell; RESTARTS with kubectl 1.24's `(… ago)`). */
const PODS = [
  "NAME               READY   STATUS             RESTARTS      AGE   IP            NODE         NOMINATED NODE   READINESS GATES",
  "sglang-decode-0    0/1     CrashLoopBackOff   5 (2m ago)    41m   10.244.3.17   gpu-node-7   <none>           <none>",
  "sglang-prefill-0   0/1     OOMKilled          2 (30s ago)   41m   10.244.1.9    gpu-node-3   <none>           <none>",
  "sglang-router-0    1/1     Running            0             41m   10.244.2.4    gpu-node-5   <none>           <none>",
  "sglang-prefill-1   0/1     Signal:11          1 (5m ago)    41m   10.244.1.10   gpu-node-3   <none>           <none>",
  "sglang-decode-1    0/1     Evicted            0             41m   <none>        gpu-node-7   <none>           <none>"
].join("\n");

test("kubectl get pods -o wide: a terminated pod is its death, a pod-level end its end, a back-off after restarts a container that keeps exiting; NODE is where it ran; nothing is dated", () => {
  assert.equal(detectFormat(`$ kubectl get pods -o wide -n llm\n${PODS}`).name, "kubectl-pods");
  const { events, issues } = parse(kubectlPods, PODS, "bundle-folder");
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.line, e.kind, e.host, e.role, e.attrs?.failureClass ?? e.attrs?.level, e.attrs?.restartCount, e.attrs?.nodeName, e.tsInferred]),
    [
      // Restarted five times and backing off: the container keeps exiting.
      [2, LogKind.crash, "sglang-decode-0", "decode", "crash", 5, "gpu-node-7", true],
      [3, LogKind.crash, "sglang-prefill-0", "prefill", "container-oom", 2, "gpu-node-3", true],
      [4, LogKind.podEvent, "sglang-router-0", "router", "info", undefined, "gpu-node-5", true],
      [5, LogKind.crash, "sglang-prefill-1", "prefill", "segfault", 1, "gpu-node-3", true],
      [6, LogKind.crash, "sglang-decode-1", "decode", "evicted", undefined, "gpu-node-7", true],
    ],
  );
  assert.equal(events[0]!.attrs?.error, "pod status CrashLoopBackOff: its container keeps exiting; restarted 5 times");
  assert.equal(events[1]!.attrs?.error, "pod status OOMKilled: its container terminated; restarted 2 times");
  assert.equal(events[1]!.attrs?.fatal, true);
});

test("a row out of the table's columns is kept and reported; an SGLang log is neither kubectl shape", () => {
  const { events, issues } = parse(kubectlEvents, `${EVENTS.split("\n")[0]}\nsomething pasted here`);
  assert.deepEqual([events[0]!.kind, issues.map((i) => i.line)], [LogKind.unparsed, [2]]);
  const sglang = "[2026-06-11 14:00:02 DP0 TP0] Init torch distributed begin.\nName: sglang\nNamespace: default\nContainers:";
  assert.equal(detectFormat(sglang).name, "sglang-log");
});

/** `kubectl describe node`'s head and Conditions table as describeNode prints them (tabwriter; each cell of a row followed by a space). */
const NODE = [
  "Name:               gpu-node-3",
  "Roles:              <none>",
  "Labels:             kubernetes.io/hostname=gpu-node-3",
  "                    nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3",
  "CreationTimestamp:  Mon, 08 Jun 2026 09:10:02 +0000",
  "Taints:             node.kubernetes.io/memory-pressure:NoSchedule",
  "Unschedulable:      false",
  "Conditions:",
  "  Type                 Status  LastHeartbeatTime                 LastTransitionTime                Reason                       Message",
  "  ----                 ------  -----------------                 ------------------                ------                       -------",
  "  MemoryPressure       True    Thu, 11 Jun 2026 14:07:31 +0000   Thu, 11 Jun 2026 14:06:58 +0000   KubeletHasInsufficientMemory kubelet has insufficient memory available",
  "  DiskPressure         False   Thu, 11 Jun 2026 14:07:31 +0000   Mon, 08 Jun 2026 09:12:31 +0000   KubeletHasNoDiskPressure     kubelet has no disk pressure",
  "  PIDPressure          False   Thu, 11 Jun 2026 14:07:31 +0000   Mon, 08 Jun 2026 09:12:31 +0000   KubeletHasSufficientPID      kubelet has sufficient PID available",
  "  Ready                False   Thu, 11 Jun 2026 14:07:31 +0000   Thu, 11 Jun 2026 14:07:20 +0000   KubeletNotReady              PLEG is not healthy: pleg was last seen active 3m2s ago; threshold is 3m0s",
  "Addresses:",
  "  InternalIP:  10.0.4.3",
  "  Hostname:    gpu-node-3",
  "Events:              <none>",
].join("\n");

test("kubectl describe node: Ready False is the machine's failure and a pressure its warning, each dated by its transition; the file is no pod's nor SGLang's", () => {
  assert.equal(detectFormat(NODE).name, "kubectl-describe-node");
  assert.equal(detectFormat(`$ kubectl describe node gpu-node-3\n${NODE}`).name, "kubectl-describe-node");
  assert.notEqual(detectFormat("[2026-06-11 14:07:10 TP0] Name: gpu-node-3\nRoles: x\nConditions:\n").name, "kubectl-describe-node");
  const { events, issues } = parse(kubectlDescribeNode, NODE);
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.line, e.kind, e.host, e.attrs?.scope, e.attrs?.condition, e.attrs?.level, e.attrs?.failureClass, e.tsUs]),
    [
      [11, LogKind.message, "gpu-node-3", "machine", "MemoryPressure", "warning", undefined, us("2026-06-11T14:06:58Z")],
      [12, LogKind.message, "gpu-node-3", "machine", "DiskPressure", "info", undefined, us("2026-06-08T09:12:31Z")],
      [13, LogKind.message, "gpu-node-3", "machine", "PIDPressure", "info", undefined, us("2026-06-08T09:12:31Z")],
      [14, LogKind.error, "gpu-node-3", "machine", "Ready", "error", "node-failure", us("2026-06-11T14:07:20Z")],
    ],
  );
  const ready = events.find((e) => e.attrs?.condition === "Ready")!;
  assert.equal(ready.attrs?.error, "node not ready (Ready False, KubeletNotReady): PLEG is not healthy: pleg was last seen active 3m2s ago; threshold is 3m0s");
});
