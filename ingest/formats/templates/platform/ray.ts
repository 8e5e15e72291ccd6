// Ray's reports of the workers it lost (SGLang's and vLLM's multi-node
// deployments on Ray), as the driver prints them behind a `(raylet) ` or
// `(raylet, ip=…) ` tag (python/ray/_private/worker.py print_worker_logs): the
// raylet's error for a worker that died by a system error
// (src/ray/raylet/node_manager.cc NodeManager::DisconnectClient) and its
// memory monitor's summary of the workers it killed
// (node_manager.cc NodeManager::HandleWorkerDeath's periodic summary, the
// "killed due to memory pressure (OOM)" line). Each names the worker's or the
// node's IP address and, for a worker, its pid: the record is that machine's
// (`scope: machine`, `node` the address as printed), never a rank's.
//
// The cause the GCS gives an actor's death (src/ray/gcs/gcs_server/gcs_actor_manager.cc,
// GenWorkerDiedCause, GenNodeDiedCause, GenKilledByApplicationCause,
// GenActorOutOfScopeCause), which python/ray/exceptions.py ActorDiedError prints
// as the last line of its message, after the tab-indented `class_name:`, `actor_id:`,
// `pid:`, `name:`, `namespace:`, `ip:` fields: a worker process that died of an
// error, or a node that died, is the actor's crash; a worker that exited as asked
// (the exit types INTENDED_USER_EXIT and INTENDED_SYSTEM_EXIT of
// src/ray/protobuf/common.proto WorkerExitType), `ray.kill` and an actor no longer
// referenced are information. The owner's death (GenOwnerDiedCause) is not read.

import type { ParsedEvent } from "../../../../domain/event.js";
import { LogKind } from "../../../../domain/kinds.js";
import { cap, type Groups, type LogTemplate, type TemplateComponent } from "../template.js";

/** A worker's exit detail that says Ray's memory monitor or the kernel's OOM killer took it. */
const OOM_DETAIL = /\bOOM\b|running low on memory|out of memory/i;

function workerDied(ev: ParsedEvent, g: Groups): void {
  const attrs = ev.attrs!;
  attrs.node = g.ip;
  if (g.detail !== undefined && OOM_DETAIL.test(g.detail)) attrs.failureClass = "host-oom";
  attrs.error = `Ray worker (pid ${g.pid}) on ${g.ip} died: ${g.exitType}${g.detail === undefined ? "" : `: ${g.detail}`}`;
}

function oomKilled(ev: ParsedEvent, g: Groups): void {
  const attrs = ev.attrs!;
  attrs.node = g.ip;
  const killed = Number(g.killed);
  if (killed === 0) attrs.failureClass = "crash";
  attrs.error = `Ray on ${g.ip}: ${g.killed} worker(s) killed by its memory monitor (OOM), ${g.crashed} crashed for other reasons`;
}

function actorDied(ev: ParsedEvent, g: Groups): void {
  const attrs = ev.attrs!;
  if (g.nodeId !== undefined) {
    attrs.error = `Ray actor died: its node ${g.nodeId} died`;
    return;
  }
  if (g.exitType === "NODE_OUT_OF_MEMORY" || (g.detail !== undefined && OOM_DETAIL.test(g.detail))) attrs.failureClass = "host-oom";
  attrs.error = `Ray actor died: its worker process died: ${g.exitType}: ${g.detail}`;
}

/** `10 Workers (tasks / actors) killed due to memory pressure (OOM)`: a count, then the words. */
function oomSummaryHead(line: string, at: number): boolean {
  let i = at;
  while (i < line.length && line.charCodeAt(i) >= 48 && line.charCodeAt(i) <= 57) i++;
  return i > at && line.startsWith(" Workers (tasks / actors) killed due to memory pressure (OOM)", i);
}

const ACTOR_DEAD = "The actor is dead because ";

const templates: LogTemplate[] = [
  {
    id: "ray.worker_died",
    kind: LogKind.crash,
    checked: "✔",
    level: "(the driver's error table; printed behind `(raylet)`)",
    format:
      "A worker died or was killed while executing a task by an unexpected system error. To troubleshoot the problem, check the logs for the dead worker. {Lease ID|RayTask ID|Task ID}: {id} Worker ID: {id} Node ID: {id}" +
      " Worker IP address: {ip} Worker port: {port} Worker PID: {pid}[ Worker exit type: {type} Worker exit detail: {detail}] — the worker process died (SYSTEM_ERROR); a detail naming the OOM killer or memory pressure makes it `host-oom`",
    source: "src/ray/raylet/node_manager.cc NodeManager::DisconnectClient (ray-project/ray, index copies: `Lease ID` in the newest, `RayTask ID` and `Task ID` before)",
    head: "A worker died or was killed while executing a task",
    pattern:
      /A worker died or was killed while executing a task by an unexpected system error\. To troubleshoot the problem, check the logs for the dead worker\..*? Worker IP address: (?<ip>[\d.]+|[0-9a-fA-F:]+) Worker port: \d+ Worker PID: (?<pid>\d+)(?: Worker exit type: (?<exitType>\w+)(?: Worker exit detail: (?<detail>.*))?)?/ys,
    truncated: "Ray worker death line",
    attrs: { scope: "machine", what: "a Ray worker died", pid: cap("pid", "number"), exitType: cap("exitType"), fatal: true, failureClass: "crash" },
    refine: workerDied,
    samples: [
      "(raylet) A worker died or was killed while executing a task by an unexpected system error. To troubleshoot the problem, check the logs for the dead worker. Lease ID: 010000008be35baadbde38fcf261df5e06a41ee17e1fada328e430cd1e68a26e Worker ID: 12a64c4cf872c7f121bbeb540c41ab9aa6db76930b4fac8ca49aec8a Node ID: 0b6abfec3ad8acdb94e5c2968c71a4c4582b2f43f3d72a9a74a04f85 Worker IP address: 10.0.3.17 Worker port: 45555 Worker PID: 26103 Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage.",
      "(raylet, ip=10.0.3.18) A worker died or was killed while executing a task by an unexpected system error. To troubleshoot the problem, check the logs for the dead worker. RayTask ID: ffffffffffffffffc90bbe1574830f10a33b147c01000000 Worker ID: f7ea96b1e8e804f578390a97c97d6bf28b5bc9fed13f0ef433e444c7 Node ID: cc69c4cc97291a2847bc91bcfbd1f19c419b6e6fbe86aad345f2f665 Worker IP address: 10.0.3.18 Worker port: 41497 Worker PID: 269812 Worker exit type: SYSTEM_ERROR Worker exit detail: The leased worker has unrecoverable failure. Worker is requested to be destroyed when it is returned.",
    ],
  },
  {
    id: "ray.oom_killed_workers",
    kind: LogKind.crash,
    checked: "✔",
    level: "E",
    format:
      "{n} Workers (tasks / actors) killed due to memory pressure (OOM), {m} Workers crashed due to other reasons at node (ID: {node id}, IP: {ip}) over the last time period. To see more information about the Workers killed on this node, use `ray logs raylet.out -ip {ip}`" +
      " — the memory monitor's periodic summary, behind the raylet's own prefix: Ray killed workers of that node for the host's memory",
    source: "src/ray/raylet/node_manager.cc (the worker-kill summary, RAY_LOG(ERROR); ray-project/ray, index copies; quoted in doc/source/ray-core/scheduling/ray-oom-prevention.rst)",
    head: oomSummaryHead,
    firstChars: "0123456789",
    pattern: /(?<killed>\d+) Workers \(tasks \/ actors\) killed due to memory pressure \(OOM\), (?<crashed>\d+) Workers crashed due to other reasons at node \(ID: [0-9a-f]+, IP: (?<ip>[\d.]+)\)/y,
    attrs: { scope: "machine", what: "killed by Ray's memory monitor", killed: cap("killed", "number"), fatal: true, failureClass: "host-oom" },
    refine: oomKilled,
    samples: [
      "(raylet, ip=10.0.3.17) [2026-06-11 14:07:11,445 E 395 395] (raylet) node_manager.cc:3049: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: e5d953ef03e55e26f13973ea1b5a0fd0ecc729cd820bc89e4aa50451, IP: 10.0.3.17) over the last time period. To see more information about the Workers killed on this node, use `ray logs raylet.out -ip 10.0.3.17`",
    ],
  },
  {
    id: "ray.actor_died",
    kind: LogKind.crash,
    checked: "✔",
    level: "(the last line of an ActorDiedError's message, after its tab-indented fields)",
    format:
      "The actor is dead because its worker process has died. Worker exit type: {SYSTEM_ERROR|USER_ERROR|NODE_OUT_OF_MEMORY} Worker exit detail: {detail}" +
      " | The actor is dead because its node has died. Node Id: {node id} — the actor's worker died of an error, or its node died; NODE_OUT_OF_MEMORY or a detail naming the OOM killer or memory pressure makes it `host-oom`",
    source:
      "src/ray/gcs/gcs_server/gcs_actor_manager.cc GenWorkerDiedCause, GenNodeDiedCause (ray-project/ray, index copies); WorkerExitType in src/ray/protobuf/common.proto; printed by python/ray/exceptions.py ActorDiedError",
    head: ACTOR_DEAD,
    pattern:
      /The actor is dead because (?:its worker process has died\. Worker exit type: (?<exitType>SYSTEM_ERROR|USER_ERROR|NODE_OUT_OF_MEMORY) Worker exit detail: (?<detail>.*)|its node has died\. Node Id: (?<nodeId>[0-9a-f]+)$)/ys,
    attrs: { what: "a Ray actor died", exitType: cap("exitType"), fatal: true, failureClass: "crash" },
    refine: actorDied,
    samples: [
      "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.",
      "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker exits unexpectedly. Worker exits with an exit code None. The worker may have exceeded K8s pod memory limits.",
      "The actor is dead because its node has died. Node Id: 0b6abfec3ad8acdb94e5c2968c71a4c4582b2f43f3d72a9a74a04f85",
    ],
  },
  {
    id: "ray.actor_exited",
    kind: LogKind.message,
    checked: "✔",
    level: "(the last line of an ActorDiedError's message, after its tab-indented fields)",
    format:
      "The actor is dead because its worker process has died. Worker exit type: {INTENDED_USER_EXIT|INTENDED_SYSTEM_EXIT} Worker exit detail: {detail}" +
      " | The actor is dead because it was killed by `ray.kill`. | The actor is dead because all references to the actor were removed. — the actor ended as asked: information",
    source:
      "src/ray/gcs/gcs_server/gcs_actor_manager.cc GenWorkerDiedCause, GenKilledByApplicationCause, GenActorOutOfScopeCause (ray-project/ray, index copies); printed by python/ray/exceptions.py ActorDiedError",
    head: ACTOR_DEAD,
    pattern:
      /The actor is dead because (?:its worker process has died\. Worker exit type: (?<exitType>INTENDED_USER_EXIT|INTENDED_SYSTEM_EXIT) Worker exit detail: .*|it was killed by `ray\.kill`\.$|all references to the actor were removed\.$)/ys,
    attrs: { level: "info", what: "a Ray actor ended as asked", exitType: cap("exitType") },
    samples: [
      "The actor is dead because its worker process has died. Worker exit type: INTENDED_USER_EXIT Worker exit detail: Worker exits by an user request. exit_actor() is called.",
      "The actor is dead because it was killed by `ray.kill`.",
      "The actor is dead because all references to the actor were removed.",
    ],
  },
];

export const RAY: TemplateComponent = {
  name: "ray",
  dialect: "ray",
  title: "Ray: the raylet's reports of workers lost",
  intro:
    "Lines a Ray driver prints of its cluster (SGLang's and vLLM's deployments on Ray), behind the tag of the process that wrote them (`(raylet) `, `(raylet, ip=10.0.3.17) `, `(SGLangEngine pid=4242, ip=…) `), the raylet's own lines with Ray's C++ prefix (`[2026-06-11 14:07:11,445 E 395 395] (raylet) node_manager.cc:3049: `). An actor's death as an `ActorDiedError` ends its message (`The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR …` a crash, an intended exit, `ray.kill` or an actor out of scope information). A worker's death and the memory monitor's kills name an IP address and a pid, never a rank or a host name of ours: the event is the machine's (`scope: machine`, `node` the address), judged by process-failure. `ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.` is an exception of class `host-oom`.",
  templates,
};
