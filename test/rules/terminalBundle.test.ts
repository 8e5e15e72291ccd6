// A hand-written bundle of a user's one-machine PD test run from an interactive shell (test/bundles/README.md,
// terminal-session): the servers started in the background with their output redirected to files, and the
// terminal's own text saved beside them, where bash reports the decode job's death in its job table and curl
// fails to reach the dead server. The terminal's text states no time.

import { after, test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { iterateEvents } from "../../store/read/events.js";
import { bundle, cleanUp, roomsOf, violated } from "./handBundles.js";

after(cleanUp);

test("bash's job table names the dead job's role from its command: decode died, at a time the terminal does not give; prefill's failed transfers follow", async () => {
  const { report } = await bundle("terminal-session");
  const [death, ...others] = violated(report, "process-failure");
  assert.equal(others.length, 0);
  assert.equal(death!.severity, "critical");
  assert.deepEqual(death!.ranks, ["decode"]);
  assert.match(death!.title, /^decode died: \[2\]- +Killed +python3 -m sglang\.launch_server/);
  // The job table is undated: its record is shown as of unknown time, never drawn at the file's neighbours' time.
  assert.equal(death!.ts, undefined);
  assert.deepEqual(death!.witness.map((w) => w.line), [7, 9]);
  const [transport] = violated(report, "transport-failure");
  assert.deepEqual(roomsOf(transport!).sort(), ["5830149913321000001", "8972542885242963296"]);
  assert.equal(report.suspects[0]?.cause, "process-crash");
});

test("the terminal's lines are the machine's: the job's death is decode's record, curl's refused connection a failure, the prompts lines of their own", async () => {
  const { db } = await bundle("terminal-session");
  const events = [...iterateEvents(db)];
  assert.deepEqual([...new Set(events.map((e) => e.host))], ["gpu-node-1"]);
  const crash = events.find((e) => e.kind === LogKind.crash);
  assert.deepEqual([crash?.role, crash?.attrs?.signal, crash?.line], ["decode", "SIGKILL", 7]);
  assert.match(String(crash?.attrs?.command), /--disaggregation-mode decode .*> decode\.log 2>&1$/);
  const terminal = events.filter((e) => e.sourceId === crash?.sourceId);
  assert.equal(terminal.length, 10);
  assert.deepEqual(terminal.filter((e) => e.kind === LogKind.error).map((e) => e.line), [9]);
});
