// The cause that ends a Ray ActorDiedError's message (ingest/formats/templates/platform/ray.ts: `ray.actor_died`,
// `ray.actor_exited`), as src/ray/gcs/gcs_server/gcs_actor_manager.cc GenWorkerDiedCause, GenNodeDiedCause,
// GenKilledByApplicationCause and GenActorOutOfScopeCause word it and python/ray/exceptions.py ActorDiedError prints it
// after its tab-indented fields. The lines are written by hand from those format strings: a worker that died of an
// error or a node that died is the actor's crash; an intended exit, `ray.kill` and an actor no longer referenced are
// information; the owner's death and other words after the opening stay unread.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines } from "./sglangHarness.js";

test("an ActorDiedError's cause line, after the exception and its tab-indented fields, is the actor's crash", () => {
  const { events } = parseLines([
    "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
    "\tclass_name: RolloutWorker",
    "\tactor_id: 5d1c0ab6f3a1e1c7a4c2d9e801000000",
    "\tpid: 40712",
    "\tname: rollout-3",
    "\tnamespace: rl",
    "\tip: 10.2.0.14",
    "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.",
  ]);
  const cause = events.at(-1)!;
  assert.equal(cause.kind, LogKind.crash);
  assert.deepEqual([cause.attrs?.what, cause.attrs?.exitType, cause.attrs?.fatal], ["a Ray actor died", "SYSTEM_ERROR", true]);
  assert.equal(cause.attrs?.failureClass, "host-oom", "the detail names the OOM killer, as ray.worker_died reads it");
});

test("a worker that died of a user error, out of the node's memory, or a dead node: each a crash", () => {
  const { events } = parseLines([
    "The actor is dead because its worker process has died. Worker exit type: USER_ERROR Worker exit detail: Worker exits because there was an exception in the initialization method.",
    "The actor is dead because its worker process has died. Worker exit type: NODE_OUT_OF_MEMORY Worker exit detail: Task was killed due to the node running low on memory.",
    "The actor is dead because its node has died. Node Id: 9f2c4b7a1e0d3c5b8a6f4e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f",
  ]);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.failureClass]),
    [
      [LogKind.crash, "crash"],
      [LogKind.crash, "host-oom"],
      [LogKind.crash, "crash"],
    ],
  );
  assert.equal(events[2]!.attrs?.error, "Ray actor died: its node 9f2c4b7a1e0d3c5b8a6f4e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f died");
});

test("an actor that ended as asked is information, not a crash", () => {
  const { events } = parseLines([
    "The actor is dead because its worker process has died. Worker exit type: INTENDED_USER_EXIT Worker exit detail: Worker exits by an user request. exit_actor() is called.",
    "The actor is dead because its worker process has died. Worker exit type: INTENDED_SYSTEM_EXIT Worker exit detail: Worker exits because it was idle (it doesn't have objects it owns while no task or actor has been scheduled) for a long time.",
    "The actor is dead because it was killed by `ray.kill`.",
    "The actor is dead because all references to the actor were removed.",
  ]);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.level]),
    [
      [LogKind.message, "info"],
      [LogKind.message, "info"],
      [LogKind.message, "info"],
      [LogKind.message, "info"],
    ],
  );
  assert.ok(events.every((e) => e.attrs?.fatal === undefined));
});

test("the owner's death, an exit type Ray does not print and other words after the opening stay unread", () => {
  const { events } = parseLines([
    "The actor is dead because its owner has died. Owner Id: 01000000ffffffffffffffffffffffffffffffffffffffffffffffff Owner Ip address: 10.2.0.14 Owner worker exit type: SYSTEM_ERROR Worker exit detail: Owner's node has crashed.",
    "The actor is dead because its worker process has died. Worker exit type: SOMETHING_ELSE Worker exit detail: made up",
    "The actor is dead because the scheduler said so.",
  ]);
  assert.ok(events.every((e) => e.attrs?.what === undefined), JSON.stringify(events.map((e) => e.kind)));
  assert.ok(events.every((e) => e.kind !== LogKind.crash));
});
