// Which lane each event kind lands in, written by hand from DESIGN.md's probe
// table and the log kinds of domain/event.ts, and how loud it is drawn.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind, ChecksumKind } from "../../domain/kinds.js";
import { laneOfKind, toneOfKind } from "../../domain/kinds.js";
import { rankLabel } from "../../analyzer/timeline/lanes.js";

const EXPECTED: Record<string, string> = {
  // probe records (DESIGN.md "Probe JSONL record")
  "req.arrive": "scheduler",
  "req.finish": "scheduler",
  "req.abort": "scheduler",
  "kv.alloc": "transfer",
  "kv.free": "transfer",
  "kv.meta": "transfer",
  "kv.post": "transfer",
  "kv.done": "transfer",
  "kv.notify": "transfer",
  "kv.poll": "transfer",
  "kv.timeout": "transfer",
  "boot.msg": "bootstrap",
  "boot.exit": "bootstrap",
  "hicache.load": "hicache",
  "hicache.layer": "hicache",
  "hicache.wait": "hicache",
  "kernel.store": "kernels",
  "kernel.read": "kernels",
  "sched.iter": "scheduler",
  "coll.enter": "collectives",
  "coll.exit": "collectives",
  config: "logs",
  // log lines (domain/event.ts LogKind)
  [LogKind.prefillBatch]: "scheduler",
  [LogKind.decodeBatch]: "scheduler",
  [LogKind.engineStats]: "scheduler",
  [LogKind.handshakeFailed]: "bootstrap",
  [LogKind.transferFailed]: "transfer",
  [LogKind.bootstrapFailed]: "bootstrap",
  [LogKind.timeoutWarning]: "transfer",
  [LogKind.contextCorruption]: "transfer",
  [LogKind.metadataNotReady]: "transfer",
  [LogKind.nodeFailure]: "bootstrap",
  [LogKind.notifSent]: "transfer",
  [LogKind.skipChunk]: "transfer",
  [LogKind.auxReceived]: "transfer",
  [LogKind.metadataSent]: "bootstrap",
  [LogKind.deferredRelease]: "bootstrap",
  [LogKind.gotInfo]: "bootstrap",
  [LogKind.bootstrapped]: "bootstrap",
  [LogKind.registerKvArgs]: "bootstrap",
  [LogKind.abortReceived]: "bootstrap",
  [LogKind.abortSent]: "bootstrap",
  [LogKind.abortAckSent]: "bootstrap",
  [LogKind.abortAckReceived]: "bootstrap",
  [LogKind.abortRequest]: "scheduler",
  [LogKind.transportError]: "transfer",
  [LogKind.transferTimeout]: "transfer",
  [LogKind.bootstrapFetchFailed]: "bootstrap",
  [LogKind.bootstrapServerError]: "bootstrap",
  [LogKind.crash]: "logs",
  [LogKind.schedulerWatchdog]: "scheduler",
  [LogKind.stackDump]: "scheduler",
  [LogKind.bootstrapRegisterFailed]: "bootstrap",
  [LogKind.heartbeatFailed]: "bootstrap",
  [LogKind.routerProbeFailed]: "logs",
  [LogKind.roomTimeout]: "transfer",
  [LogKind.capacityRejected]: "scheduler",
  [LogKind.prefetchRevoked]: "hicache",
  [LogKind.exception]: "logs",
  [LogKind.watchdog]: "collectives",
  [LogKind.ncclWarning]: "collectives",
  [LogKind.httpAccess]: "scheduler",
  [LogKind.httpFailed]: "scheduler",
  [LogKind.podEvent]: "logs",
  [LogKind.error]: "logs",
  [LogKind.message]: "logs",
  [LogKind.unparsed]: "logs",
  [ChecksumKind]: "checksums",
};

test("every kind of the shared contract lands in the component lane it belongs to", () => {
  for (const [kind, component] of Object.entries(EXPECTED)) assert.equal(laneOfKind(kind), component, kind);
  for (const kind of Object.values(LogKind)) assert.ok(kind in EXPECTED, `${kind} has an expectation`);
  assert.equal(laneOfKind("someone.new"), "logs", "an unknown kind still gets a lane");
});

test("failures are drawn loud, aborts and timeouts as warnings, the rest quietly", () => {
  assert.equal(toneOfKind("kv.poll", 0), 2, "KVPoll.Failed");
  assert.equal(toneOfKind("kv.poll", 4), 0);
  assert.equal(toneOfKind(LogKind.transferFailed, null), 2);
  assert.equal(toneOfKind(LogKind.exception, null), 2);
  assert.equal(toneOfKind("boot.exit", null), 2, "the bootstrap thread ended");
  assert.equal(toneOfKind(LogKind.crash, null), 2, "the process died");
  assert.equal(toneOfKind(LogKind.bootstrapFetchFailed, null), 2);
  assert.equal(toneOfKind("coll.exit", null), 0, "leaving a collective is routine");
  assert.equal(toneOfKind(LogKind.abortSent, null), 1);
  assert.equal(toneOfKind("kv.timeout", null), 1);
  assert.equal(toneOfKind(LogKind.error, null), 2, "an error-level line no template reads");
  assert.equal(toneOfKind(LogKind.message, null), 0);
  assert.equal(toneOfKind(LogKind.unparsed, null), 0);
});

test("ranks read as the SGLang log prefix names them (§1)", () => {
  assert.equal(rankLabel(0, 0, 3), "TP3", "DP0 PP0 is the same rank as no tags");
  assert.equal(rankLabel(null, null, 3), "TP3");
  assert.equal(rankLabel(1, null, 4), "DP1 TP4");
  assert.equal(rankLabel(0, 1, 2), "PP1 TP2");
  assert.equal(rankLabel(null, null, null), "no rank");
});
