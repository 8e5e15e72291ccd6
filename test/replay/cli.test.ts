// `kvrewind replay <db> --at <seq|time> [--room] [--json]` on the NIXL
// mass-abort wedge: the state printed around the ABORT that kills the thread.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { ingestCase, seqOf } from "./incidents.js";
import { scratchDir } from "../scratchDir.js";
import { KVREWIND_CLI } from "../kvrewindCli.js";

const MAIN = KVREWIND_CLI;

function kvrewind(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [MAIN, ...args], { encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test("replay --at prints rooms by KVPoll name, the bootstrap thread, and the profile with its reasons", async () => {
  const { db, path } = await ingestCase("nixl-abort-wedge");
  const abortSent = seqOf(db, "decode-0/decode-tp3.log", 2);
  db.close();

  const before = kvrewind("replay", path, "--at", String(abortSent - 1));
  assert.equal(before.code, 0, before.err);
  assert.match(before.out, /^profile: nixl v0\.5\.15, /m);
  assert.match(before.out, /^ {2}version .*= 0\.5\.15 +log .*\[seq \d+ .*prefill-tp3\.log:5/m);
  assert.match(before.out, /^ {2}5830149913321004417\n {4}prefill WaitingForInput /m);
  assert.match(before.out, /^ {2}prefill\/tp3: alive$/m);

  const after = kvrewind("replay", path, "--at", "2026-06-20T14:05:29.870Z");
  assert.equal(after.code, 0, after.err);
  assert.match(after.out, new RegExp(`^state after seq ${abortSent} at 2026-06-20T14:05:29\\.870000Z .*decode-tp3\\.log:2$`, "m"));
  assert.match(after.out, /^ {2}prefill\/tp3: DEAD /m);
  assert.match(after.out, /^ {4}decode +Failed /m);

  const json = kvrewind("replay", path, "--at", String(abortSent), "--room", "5830149913321004417", "--json");
  assert.equal(json.code, 0, json.err);
  const parsed = JSON.parse(json.out) as {
    at: { seq: number; line: number };
    profile: { profile: { version: string } };
    state: { rooms: { room: string; prefill: { state: string }; decode: { state: string; changedAt: { seq: number; line: number } } }[]; bootstrapThreads: { alive: boolean }[] };
  };
  assert.equal(parsed.at.seq, abortSent);
  assert.equal(parsed.profile.profile.version, "0.5.15");
  assert.deepEqual(
    parsed.state.rooms.map((r) => [r.room, r.prefill.state, r.decode.state, r.decode.changedAt.line]),
    [["5830149913321004417", "WaitingForInput", "Failed", 2]],
  );
  assert.deepEqual(parsed.state.bootstrapThreads.map((t) => t.alive), [false]);

  const bad = kvrewind("replay", path, "--at", "yesterday");
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--at: "yesterday" is neither a seq nor an ISO time/);

  const summary = kvrewind("replay", path);
  assert.equal(summary.code, 0, summary.err);
  assert.match(summary.out, /^ {2}unhandled-abort {2}seq \d+ {2}room 5830149913321004417 {2}prefill\/tp3: /m);
  // The coverage block is the rules' (as `analyze` prints it), not the model's raw counters.
  assert.match(summary.out, /^ {2}collective-divergence +undetermined +checked +0 {2}missing: /m);
  assert.match(summary.out, /^ {2}unhandled-abort +violated +checked +\d+$/m);

  const unknown = kvrewind("replay", path, "--at", "1", "--room", "1234567890123456789");
  assert.equal(unknown.code, 2);
  assert.match(unknown.err, /--room 1234567890123456789: no event of this incident names that room/);
  const late = kvrewind("replay", path, "--at", "2026-06-21T00:00:00Z", "--room", "5830149913321004417");
  assert.equal(late.code, 0, late.err);
  assert.match(late.out, /^note: --at is after the incident: its last event is seq \d+, 2026-06-20T14:10:3\d\.\d+Z, .*decode-tp3\.log:\d+/m);
  const early = kvrewind("replay", path, "--at", "2026-06-20T13:00:00Z", "--room", "5830149913321004417", "--json");
  const notes = (JSON.parse(early.out) as { notes: string[] }).notes;
  assert.match(notes[0]!, /^--at is before the incident: its first event is seq 1,/);
  assert.match(notes[1]!, /^room 5830149913321004417 has no state yet: its first event is seq \d+, 2026-06-20T14:05:20\.000Z, .*prefill-tp3\.log:\d+, after this point$/);
});

test("replay into a reader that has stopped reading (| head) ends quietly", async () => {
  const { db, path } = await ingestCase("nixl-abort-wedge");
  db.close();
  const child = spawn(process.execPath, [MAIN, "replay", path, "--at", "1"], { stdio: ["ignore", "pipe", "pipe"] });
  // Closed before the command writes: its first write meets a closed pipe (EPIPE).
  child.stdout.destroy();
  let err = "";
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((done) => child.on("close", done));
  assert.equal(err, "");
  assert.equal(code, 0);
});

test("replay rejects a missing database with exit code 2", () => {
  const missing = kvrewind("replay", join(scratchDir("kvrewind-none-"), "incident.db"));
  assert.equal(missing.code, 2);
  assert.match(missing.err, /no such incident database/);
});
