// xLLM's service (ingest/formats/templates/platform/xllmService.ts): the first master's
// lookup of the master's etcd key, which glog prints at ERROR, read as the
// start-up it is (xllm-service scheduler.cpp Scheduler::Scheduler, etcd_client.cpp
// EtcdClient::get). The lines are the working half's xllm-270-a; the last one is
// written by hand in the same shape with another error of the same lookup.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines } from "./sglangHarness.js";

test("xLLM's first master: the lookup of the master's key that finds none is the start-up, any other failed lookup an error", () => {
  const { events } = parseLines([
    "I20251022 15:08:56.521587 140899 etcd_client.cpp:26] EtcdClient init put start!",
    "I20251022 15:08:56.528378 140899 etcd_client.cpp:28] EtcdClient init put end!",
    "E20251022 15:08:56.529011 140899 etcd_client.cpp:104] etcd get XLLM:SERVICE:MASTER failed: etcd-cpp-apiv3: key not found",
    "I20251022 15:08:56.531591 140899 scheduler.cpp:37] Set current service as master!",
    "E20251022 15:09:30.100000 140899 etcd_client.cpp:104] etcd get XLLM:SERVICE:MASTER failed: failed to connect to all addresses",
  ]);
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.level]), [
    [LogKind.message, "info"],
    [LogKind.message, "info"],
    [LogKind.message, "info"],
    [LogKind.message, "info"],
    [LogKind.error, "error"],
  ]);
  assert.equal(events[2]!.attrs?.etcdKey, "XLLM:SERVICE:MASTER");
});
