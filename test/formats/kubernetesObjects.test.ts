// Kubernetes objects saved as JSON or YAML, written by hand in the shapes kubectl
// prints them: `kubectl get events -o json` (an unstructured `List`, keys in
// sorted order, each item with its kind), and `kubectl cluster-info dump
// --output-directory`'s `events.json`, `pods.json` and `nodes.json` (typed
// lists, Go's field order, four-space indentation; kubectl
// pkg/cmd/clusterinfo/clusterinfo_dump.go), and `kubectl get pod -o yaml` — read by
// ingest/formats/kubectl/objects.ts.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { detectFormat } from "../../ingest/formats/index.js";
import { kubernetesObjects } from "../../ingest/formats/kubectl/objects.js";
import { parseWith, us, type Parsed } from "./sglangHarness.js";

function parse(text: string, host?: string): Parsed {
  return parseWith(kubernetesObjects, text, host);
}

/** The line of `text` on which `needle` stands (1-based). */
function lineWith(text: string, needle: string): number {
  return text.split("\n").findIndex((l) => l.includes(needle)) + 1;
}

/** `kubectl get events -A -o json`: the node's OOM kill (node-problem-detector) and a pod's back-off. */
const GET_EVENTS = `{
    "apiVersion": "v1",
    "items": [
        {
            "apiVersion": "v1",
            "count": 1,
            "eventTime": null,
            "firstTimestamp": "2026-06-11T14:07:11Z",
            "involvedObject": {
                "kind": "Node",
                "name": "gpu-node-3",
                "uid": "gpu-node-3"
            },
            "kind": "Event",
            "lastTimestamp": "2026-06-11T14:07:11Z",
            "message": "Memory cgroup out of memory: Killed process 41234 (python3) total-vm:812345612kB, anon-rss:1951234560kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:3893212kB oom_score_adj:0",
            "metadata": {
                "creationTimestamp": "2026-06-11T14:07:11Z",
                "name": "gpu-node-3.17d8a1f2c3b4a5e6",
                "namespace": "default",
                "resourceVersion": "812345",
                "uid": "0c9d6f3e-8a41-4d2b-9e57-3f1a2b4c5d6e"
            },
            "reason": "OOMKilling",
            "reportingComponent": "",
            "reportingInstance": "",
            "source": {
                "component": "kernel-monitor",
                "host": "gpu-node-3"
            },
            "type": "Warning"
        },
        {
            "apiVersion": "v1",
            "count": 5,
            "eventTime": null,
            "firstTimestamp": "2026-06-11T14:07:31Z",
            "involvedObject": {
                "apiVersion": "v1",
                "fieldPath": "spec.containers{sglang}",
                "kind": "Pod",
                "name": "sglang-decode-0",
                "namespace": "llm",
                "uid": "5b1e2f3a-4c5d-4e6f-8a9b-0c1d2e3f4a5b"
            },
            "kind": "Event",
            "lastTimestamp": "2026-06-11T14:09:02Z",
            "message": "Back-off restarting failed container sglang in pod sglang-decode-0_llm(5b1e2f3a-4c5d-4e6f-8a9b-0c1d2e3f4a5b)",
            "metadata": {
                "creationTimestamp": "2026-06-11T14:07:31Z",
                "name": "sglang-decode-0.17d8a1f9a0b1c2d3",
                "namespace": "llm",
                "resourceVersion": "812399",
                "uid": "7e8f9a0b-1c2d-4e3f-9a4b-5c6d7e8f9a0b"
            },
            "reason": "BackOff",
            "reportingComponent": "kubelet",
            "reportingInstance": "gpu-node-7",
            "source": {
                "component": "kubelet",
                "host": "gpu-node-7"
            },
            "type": "Warning"
        }
    ],
    "kind": "List",
    "metadata": {
        "resourceVersion": ""
    }
}`;

/** cluster-info dump's pods.json: the decode pod OOMKilled once and running again; the prefill pod evicted. */
const PODS = `{
    "kind": "PodList",
    "apiVersion": "v1",
    "metadata": {
        "resourceVersion": "812401"
    },
    "items": [
        {
            "metadata": {
                "name": "sglang-decode-0",
                "namespace": "llm",
                "uid": "5b1e2f3a-4c5d-4e6f-8a9b-0c1d2e3f4a5b",
                "creationTimestamp": "2026-06-11T13:58:02Z"
            },
            "spec": {
                "containers": [
                    {
                        "name": "sglang",
                        "image": "lmsysorg/sglang:v0.5.14-cu129"
                    }
                ],
                "nodeName": "gpu-node-7"
            },
            "status": {
                "phase": "Running",
                "startTime": "2026-06-11T13:58:02Z",
                "containerStatuses": [
                    {
                        "name": "sglang",
                        "state": {
                            "running": {
                                "startedAt": "2026-06-11T14:09:40Z"
                            }
                        },
                        "lastState": {
                            "terminated": {
                                "exitCode": 137,
                                "reason": "OOMKilled",
                                "startedAt": "2026-06-11T13:58:04Z",
                                "finishedAt": "2026-06-11T14:07:11Z",
                                "containerID": "containerd://3f1c2b7e9a4d"
                            }
                        },
                        "ready": true,
                        "restartCount": 1,
                        "image": "lmsysorg/sglang:v0.5.14-cu129",
                        "started": true
                    }
                ],
                "qosClass": "Burstable"
            }
        },
        {
            "metadata": {
                "name": "sglang-prefill-0",
                "namespace": "llm",
                "uid": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                "creationTimestamp": "2026-06-11T13:58:02Z"
            },
            "spec": {
                "nodeName": "gpu-node-3"
            },
            "status": {
                "phase": "Failed",
                "message": "The node was low on resource: memory. Threshold quantity: 100Mi, available: 51200Ki. ",
                "reason": "Evicted",
                "startTime": "2026-06-11T13:58:02Z"
            }
        }
    ]
}`;

const NODES = `{
    "kind": "NodeList",
    "apiVersion": "v1",
    "metadata": {},
    "items": [
        {
            "metadata": {
                "name": "gpu-node-3",
                "uid": "2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a"
            },
            "status": {
                "conditions": [
                    {
                        "type": "MemoryPressure",
                        "status": "True",
                        "lastHeartbeatTime": "2026-06-11T14:07:31Z",
                        "lastTransitionTime": "2026-06-11T14:06:58Z",
                        "reason": "KubeletHasInsufficientMemory",
                        "message": "kubelet has insufficient memory available"
                    },
                    {
                        "type": "Ready",
                        "status": "False",
                        "lastHeartbeatTime": "2026-06-11T14:07:31Z",
                        "lastTransitionTime": "2026-06-11T14:07:20Z",
                        "reason": "KubeletNotReady",
                        "message": "PLEG is not healthy: pleg was last seen active 3m2s ago; threshold is 3m0s"
                    }
                ]
            }
        }
    ]
}`;

test("kubectl get events -o json: each event at its first time, on the node or pod it names, at its uid's line; a node's OOM kill is its death", () => {
  assert.equal(detectFormat(GET_EVENTS).name, "kubernetes-objects");
  const { events, issues } = parse(GET_EVENTS, "llm");
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.line, e.kind, e.host, e.role, e.tsUs, e.tsInferred, e.attrs?.scope, e.attrs?.failureClass ?? e.attrs?.level]),
    [
      [lineWith(GET_EVENTS, '"uid": "0c9d6f3e'), LogKind.crash, "gpu-node-3", undefined, us("2026-06-11T14:07:11Z"), undefined, "machine", "host-oom"],
      [lineWith(GET_EVENTS, '"uid": "7e8f9a0b'), LogKind.podEvent, "sglang-decode-0", "decode", us("2026-06-11T14:07:31Z"), undefined, "pod", "warning"],
    ],
  );
  assert.match(String(events[0]!.attrs?.error), /^the node's OOM killer: Memory cgroup out of memory: Killed process 41234 \(python3\)/);
  assert.equal(events[1]!.attrs?.count, 5);
});

test("cluster-info dump's pods.json: a container's last termination at its finishedAt, a pod's eviction undated; the running state is information", () => {
  assert.equal(detectFormat(PODS).name, "kubernetes-objects");
  const { events, issues } = parse(PODS);
  assert.deepEqual(issues, []);
  const oom = events.find((e) => e.attrs?.failureClass === "container-oom")!;
  assert.equal(oom.kind, LogKind.crash);
  assert.deepEqual([oom.host, oom.role, oom.line, oom.tsUs, oom.tsInferred], ["sglang-decode-0", "decode", lineWith(PODS, '"uid": "5b1e2f3a'), us("2026-06-11T14:07:11Z"), undefined]);
  assert.equal(oom.attrs?.error, "container sglang terminated: OOMKilled (exit code 137); restarted once");
  assert.equal(oom.attrs?.nodeName, "gpu-node-7");
  const running = events.find((e) => e.attrs?.state === "Running")!;
  assert.deepEqual([running.kind, running.attrs?.level, running.tsUs], [LogKind.podEvent, "info", us("2026-06-11T14:09:40Z")]);
  const evicted = events.find((e) => e.attrs?.failureClass === "evicted")!;
  assert.deepEqual([evicted.host, evicted.role, evicted.line, evicted.tsInferred], ["sglang-prefill-0", "prefill", lineWith(PODS, '"uid": "9a8b7c6d'), true]);
  assert.equal(evicted.attrs?.error, "pod evicted: The node was low on resource: memory. Threshold quantity: 100Mi, available: 51200Ki. ");
});

test("cluster-info dump's nodes.json: Ready False is the machine's failure at its transition, a pressure its warning", () => {
  const { events } = parse(NODES);
  assert.deepEqual(
    events.map((e) => [e.kind, e.host, e.tsUs, e.attrs?.failureClass ?? e.attrs?.level]),
    [
      [LogKind.message, "gpu-node-3", us("2026-06-11T14:06:58Z"), "warning"],
      [LogKind.error, "gpu-node-3", us("2026-06-11T14:07:20Z"), "node-failure"],
    ],
  );
});

test("JSON that is not these objects is left to other readers; a broken file is one issue", () => {
  assert.notEqual(detectFormat('{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x"}}').name, "kubernetes-objects");
  assert.notEqual(detectFormat('{"data": [], "kind": "Pod"}').name, "kubernetes-objects");
  const { events, issues } = parse(GET_EVENTS.slice(0, 400));
  assert.deepEqual(events, []);
  assert.equal(issues.length, 1);
  assert.match(issues[0]!.message, /^not JSON/);
});

test("kubectl cluster-info dump to standard output: its documents are read, and each container's log as its pod's", () => {
  const dump = [
    NODES,
    PODS,
    "==== START logs for container sglang of pod llm/sglang-decode-0 ====",
    "[2026-06-11 14:07:25 DP0 TP0] Decode transfer failed for request rank=0 decode_req.req.rid='7c8e2a3f90d14b6fb1e3a5c7d9f02468' decode_req.req.bootstrap_room=6827014371155442690 with exception Lost connection with prefill instance (bootstrap_addr: 10.0.3.17:8998), 12 requests affected",
    "==== END logs for container sglang of pod llm/sglang-decode-0 ====",
    "==== START logs for container sglang of pod llm/sglang-prefill-0 ====",
    "[2026-06-11 14:07:45 DP0 TP0] Init torch distributed begin.",
    "==== END logs for container sglang of pod llm/sglang-prefill-0 ====",
    "",
  ].join("\n");
  assert.equal(detectFormat(dump).name, "kubernetes-objects");
  const { events, issues } = parse(dump);
  assert.deepEqual(issues, []);
  assert.ok(events.some((e) => e.attrs?.failureClass === "container-oom" && e.host === "sglang-decode-0"), "pods.json's termination");
  assert.ok(events.some((e) => e.attrs?.failureClass === "node-failure" && e.host === "gpu-node-3"), "nodes.json's Ready False");
  const decodeLine = lineWith(dump, "Decode transfer failed");
  const decode = events.find((e) => e.line === decodeLine)!;
  assert.deepEqual([decode.kind, decode.host, decode.role, decode.tsUs], [LogKind.transferFailed, "sglang-decode-0", "decode", us("2026-06-11T14:07:25Z")]);
  const prefill = events.find((e) => e.line === lineWith(dump, "Init torch distributed begin"))!;
  assert.deepEqual([prefill.host, prefill.role], ["sglang-prefill-0", "prefill"]);
  const markers = events.filter((e) => e.text.startsWith("===="));
  assert.equal(markers.length, 4, "kubectl's own lines are kept as text");
  assert.ok(markers.every((e) => e.kind === LogKind.unparsed));
});

/** `kubectl get pod sglang-decode-0 -o yaml` (kubectl's YAML printer: sorted keys, times quoted), cut to the fields read. */
const POD_YAML = `apiVersion: v1
kind: Pod
metadata:
  creationTimestamp: "2026-06-11T13:58:02Z"
  name: sglang-decode-0
  namespace: llm
  uid: 5b1e2f3a-4c5d-4e6f-8a9b-0c1d2e3f4a5b
spec:
  containers:
  - image: lmsysorg/sglang:v0.5.14-cu129
    name: sglang
  nodeName: gpu-node-7
status:
  containerStatuses:
  - image: lmsysorg/sglang:v0.5.14-cu129
    lastState:
      terminated:
        containerID: containerd://3f1c2b7e9a4d
        exitCode: 139
        finishedAt: "2026-06-11T14:07:11Z"
        reason: Error
        startedAt: "2026-06-11T13:58:04Z"
    name: sglang
    ready: true
    restartCount: 1
    started: true
    state:
      running:
        startedAt: "2026-06-11T14:07:40Z"
  phase: Running
`;

test("kubectl get pod -o yaml: the container's segfault (exit 139) at its finishedAt, on the pod, at its uid's line", () => {
  assert.equal(detectFormat(POD_YAML).name, "kubernetes-objects");
  const { events, issues } = parse(POD_YAML);
  assert.deepEqual(issues, []);
  const crash = events.find((e) => e.kind === LogKind.crash)!;
  assert.deepEqual(
    [crash.host, crash.role, crash.line, crash.tsUs, crash.attrs?.failureClass, crash.attrs?.nodeName],
    ["sglang-decode-0", "decode", lineWith(POD_YAML, "uid: 5b1e2f3a"), us("2026-06-11T14:07:11Z"), "segfault", "gpu-node-7"],
  );
  assert.equal(crash.attrs?.error, "container sglang terminated: Error (exit code 139); restarted once");
});

test("YAML events in a stream of documents (`---`), and YAML that is not these objects", () => {
  const stream = [
    "---",
    "apiVersion: v1",
    "kind: Event",
    "metadata:",
    "  name: gpu-node-3.17d8a1f2c3b4a5e6",
    "  uid: 0c9d6f3e-8a41-4d2b-9e57-3f1a2b4c5d6e",
    "involvedObject:",
    "  kind: Node",
    "  name: gpu-node-3",
    "reason: OOMKilling",
    'message: "Out of memory: Killed process 41234 (python3)"',
    'firstTimestamp: "2026-06-11T14:07:11Z"',
    "type: Warning",
    "---",
    "apiVersion: v1",
    "kind: Event",
    "metadata:",
    "  uid: 7e8f9a0b-1c2d-4e3f-9a4b-5c6d7e8f9a0b",
    "involvedObject: {kind: Pod, name: sglang-decode-0}",
    "reason: Unhealthy",
    "message: 'Readiness probe failed: HTTP probe failed with statuscode: 503'",
    'firstTimestamp: "2026-06-11T14:07:31Z"',
    "type: Warning",
    "",
  ].join("\n");
  assert.equal(detectFormat(stream).name, "kubernetes-objects");
  const { events } = parse(stream);
  assert.deepEqual(events.map((e) => [e.line, e.kind, e.host, e.tsUs]), [
    [lineWith(stream, "uid: 0c9d6f3e"), LogKind.crash, "gpu-node-3", us("2026-06-11T14:07:11Z")],
    [lineWith(stream, "uid: 7e8f9a0b"), LogKind.podEvent, "sglang-decode-0", us("2026-06-11T14:07:31Z")],
  ]);
  const deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: sglang\n";
  assert.notEqual(detectFormat(deployment).name, "kubernetes-objects");
  const { issues } = parse("apiVersion: v1\nkind: Pod\nmetadata: [unclosed\n");
  assert.match(issues[0]?.message ?? "", /^not YAML/);
});

test("cluster-info dump to standard output cut inside a document: that document is one issue, and the documents and logs after it are read", () => {
  const cut = NODES.split("\n").slice(0, 12).join("\n");
  const dump = [
    cut,
    PODS,
    '{"kind": "EventList", "apiVersion": "v1", "metadata": {}, "items": []}',
    "==== START logs for container sglang of pod llm/sglang-prefill-0 ====",
    "[2026-06-11 14:07:45 DP0 TP0] Init torch distributed begin.",
    "==== END logs for container sglang of pod llm/sglang-prefill-0 ====",
  ].join("\n");
  const { events, issues } = parse(dump);
  assert.deepEqual(issues.map((i) => [i.line, /^not JSON/.test(i.message)]), [[1, true]]);
  assert.ok(events.some((e) => e.attrs?.failureClass === "container-oom"), "pods.json after the cut document is read");
  assert.ok(events.some((e) => e.host === "sglang-prefill-0" && e.line === lineWith(dump, "Init torch distributed begin")), "and the log after it");
});

