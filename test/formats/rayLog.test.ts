// A Ray driver's output beside an SGLang server on Ray, in the shapes an
// operator pastes it: workers' lines behind their `(Name pid=…, ip=…)` tags,
// the raylet's behind `(raylet)`, its C++ lines with Ray's own prefix. Lines
// written by hand from ray's format strings (docs/log-templates.md "Ray").

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines, us } from "./sglangHarness.js";

test("Ray's tags: an actor's, a bare pid's and the raylet's are stripped; the line beneath is read in its own dialect", () => {
  const { events, issues } = parseLines([
    "(SGLangEngine pid=4242, ip=10.0.3.17) [2026-06-11 14:07:10 TP1] Prefill batch. #new-seq: 1, #new-token: 2048, #cached-token: 0, token usage: 0.12, #running-req: 0, #queue-req: 0",
    "(pid=4242, ip=10.0.3.17) ValueError: port_base 30000 is not available",
    "(raylet, ip=10.0.3.17) [2026-06-11 14:07:11,445 W 395 395] (raylet) node_manager.cc:1200: Something the raylet says",
    "(raylet)",
  ]);
  assert.deepEqual(issues, []);
  assert.deepEqual(events.map((e) => [e.kind, e.tp, e.attrs?.level]), [
    ["batch.prefill", 1, undefined],
    [LogKind.exception, undefined, undefined],
    [LogKind.message, undefined, "warning"],
  ]);
  // The raylet's own prefix dates its line; the address in the tag is no host of ours.
  assert.equal(events[2]!.tsUs, us("2026-06-11T14:07:11.445Z"));
  assert.equal(events[2]!.attrs?.source, "node_manager.cc:1200");
  assert.equal(events[2]!.host, undefined);
});

test("a worker the memory monitor killed: the raylet's summary and the driver's exception are host OOM, not CUDA's", () => {
  const { events } = parseLines([
    "(raylet, ip=10.0.3.17) [2026-06-11 14:07:11,445 E 395 395] (raylet) node_manager.cc:3049: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: e5d953ef03e55e26f13973ea1b5a0fd0ecc729cd820bc89e4aa50451, IP: 10.0.3.17) over the last time period. To see more information about the Workers killed on this node, use `ray logs raylet.out -ip 10.0.3.17`",
    "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.",
    "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
  ]);
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.failureClass, e.attrs?.node]), [
    [LogKind.crash, "host-oom", "10.0.3.17"],
    [LogKind.exception, "host-oom", undefined],
    [LogKind.exception, "other", undefined],
  ]);
});

test("a worker's death names its address and pid; a line that only quotes the words halfway is kept uninterpreted and named", () => {
  const died =
    "(raylet) A worker died or was killed while executing a task by an unexpected system error. To troubleshoot the problem, check the logs for the dead worker. Lease ID: 0100 Worker ID: 12a6 Node ID: 0b6a Worker IP address: 10.0.3.17 Worker port: 45555 Worker PID: 26103 Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file.";
  const { events, issues } = parseLines([died, "(raylet) A worker died or was killed while executing a task by an unexpected system error."]);
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.scope, e.attrs?.node, e.attrs?.pid, e.attrs?.failureClass]), [
    [LogKind.crash, "machine", "10.0.3.17", 26103, "crash"],
    [LogKind.unparsed, undefined, undefined, undefined, undefined],
  ]);
  assert.equal(events[0]!.host, undefined, "an IP address is no host name of ours");
  assert.deepEqual(issues.map((i) => i.line), [2]);
});

test("Ray's Python loggers' `asctime\\tLEVEL file.py:N -- ` form: the driver's older warning of a worker's death is that death, dated by the line", () => {
  // python/ray/_private/ray_constants.py LOGGER_FORMAT; the driver printed the raylet's errors with logger.warning (worker.py listen_error_messages).
  const { events, issues } = parseLines([
    "2023-04-09 07:23:58,120\tINFO worker.py:1636 -- Connecting to existing Ray cluster at address: 10.0.3.17:6379...",
    "2023-04-09 07:23:59,445\tWARNING worker.py:1866 -- A worker died or was killed while executing a task by an unexpected system error. To troubleshoot the problem, check the logs for the dead worker. RayTask ID: ffffffffffffffffc90bbe1574830f10a33b147c01000000 Worker ID: f7ea96b1e8e804f578390a97c97d6bf28b5bc9fed13f0ef433e444c7 Node ID: cc69c4cc97291a2847bc91bcfbd1f19c419b6e6fbe86aad345f2f665 Worker IP address: 10.0.3.18 Worker port: 41497 Worker PID: 269812",
    // Ray 1.x's wording names the task only, no node and no pid: whose machine is unknown, so it stays the warning it is.
    "2021-03-01 12:00:00,123\tWARNING worker.py:1107 -- A worker died or was killed while executing task ffffffffffffffff4f6e7b8c01000000.",
  ]);
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.kind, e.tsUs, e.attrs?.level, e.attrs?.source, e.attrs?.scope, e.attrs?.node, e.attrs?.pid]),
    [
      [LogKind.message, us("2023-04-09T07:23:58.120Z"), "info", "worker.py:1636", undefined, undefined, undefined],
      // A template's event keeps its own attributes: the logger's place is said of a line no template read.
      [LogKind.crash, us("2023-04-09T07:23:59.445Z"), undefined, undefined, "machine", "10.0.3.18", 269812],
      [LogKind.message, us("2021-03-01T12:00:00.123Z"), "warning", "worker.py:1107", undefined, undefined, undefined],
    ],
  );
  assert.equal(events[2]!.unparsedMessage, "A worker died or was killed while executing task ffffffffffffffff4f6e7b8c01000000.", "the message read from after the place, its shape counted");
});

test("an actor's tag names it as Ray Serve does, `ServeReplica:{app}:{deployment}`: the tag is stripped and the line beneath read", () => {
  // ray-project/ray#53267 (the working half of test/corpus): a Serve replica's vLLM engine died; its traceback's
  // last frame, the exception, then Serve's own error line, each behind the replica's tag.
  const tag = "(ServeReplica:default:LLMDeploymentqwen-0_5b pid=14262)";
  const { events } = parseLines([
    `${tag}     raise self._format_exception(outputs) from None`,
    `${tag} vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.`,
    `${tag} ERROR 2025-05-23 00:42:04,876 default_LLMDeploymentqwen-0_5b rcja4aht 700823bf-0cfe-460a-bb1c-00e25d0f3fb8 -- Encountered failure while handling request 700823bf-0cfe-460a-bb1c-00e25d0f3fb8`,
  ]);
  const exc = events.find((e) => e.kind === LogKind.exception);
  assert.equal(exc?.line, 2);
  assert.equal(exc?.attrs?.excType, "vllm.v1.engine.exceptions.EngineDeadError");
  // Ray prints the actor's or task's name as it is (python/ray/_private/worker.py print_worker_logs, prefix_for);
  // Serve's replica actors are `ServeReplica:{app}:{deployment}`, or `ServeReplica:{deployment}` in releases without
  // applications (python/ray/serve/_private/common.py to_replica_actor_class_name). Written by hand.
  const { events: more } = parseLines(["(ServeReplica:Summarizer pid=2177, ip=10.0.1.5) ValueError: port_base 30000 is not available"]);
  assert.deepEqual(more.map((e) => [e.kind, e.attrs?.excType]), [[LogKind.exception, "ValueError"]]);
});
