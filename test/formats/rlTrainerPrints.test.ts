// The RL trainers' own prints (ingest/formats/templates/platform/hydra.ts, verl.ts): Hydra's hint after the traceback
// of a task that raised (hydra/_internal/utils.py run_and_report) and verl's console metrics line
// (verl/utils/logger/aggregate_logger.py concat_dict_to_str). Lines written by hand from those format strings.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines } from "./sglangHarness.js";

test("Hydra's hint after a driver's traceback is information; the exception above it stays the failure", () => {
  const { events } = parseLines([
    "Traceback (most recent call last):",
    '  File "/opt/verl/verl/trainer/main_ppo.py", line 64, in main',
    "    run_ppo(config)",
    "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [10.1.2.3]:29500",
    "",
    "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.",
  ]);
  const hint = events.at(-1)!;
  assert.equal(hint.kind, LogKind.message);
  assert.deepEqual([hint.attrs?.level, hint.attrs?.launcher], ["info", "hydra"]);
  assert.equal(events[0]!.kind, LogKind.exception, "the RuntimeError is still read as the failure");
  assert.equal(events[0]!.attrs?.excType, "RuntimeError");
});

test("verl's metrics line, alone and behind Ray's TaskRunner tag, is the step's information", () => {
  const { events } = parseLines([
    "step:3 - actor/pg_loss:-0.012 - actor/grad_norm:nan - actor/lr:1e-06 - training/global_step:3 - timing_s/gen:41.27",
    "(TaskRunner pid=51234) step:4 - actor/entropy:0.3126 - actor/pg_clipfrac:0.0009 - critic/score/mean:0.4375 - response_length/mean:512.25",
  ]);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.trainer, e.attrs?.step, e.attrs?.level]),
    [
      [LogKind.message, "verl", 3, "info"],
      [LogKind.message, "verl", 4, "info"],
    ],
  );
});

test("lines that only start like them stay unread: prose after `step:`, a hint with other words", () => {
  const { events } = parseLines([
    "step:5 - the loss went to nan here",
    "step:6",
    "Set the environment variable HYDRA_FULL_ERROR=1 to see everything, please",
  ]);
  assert.ok(events.every((e) => e.attrs?.trainer === undefined && e.attrs?.launcher === undefined));
});
