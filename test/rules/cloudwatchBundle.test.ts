// A hand-written bundle of an EKS deployment's logs as CloudWatch gives them back (test/bundles/README.md,
// cloudwatch-eks): `aws logs tail` of Container Insights' application log group, each event's message Fluent Bit's
// JSON record of a pod's line, which holds the runtime's whole CRI line. Three wrappers deep, two pods in one file.

import { after, test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { iterateEvents } from "../../store/read/events.js";
import { bundle, cleanUp, roomsOf, violated } from "./handBundles.js";

after(cleanUp);

test("CloudWatch export: each pod is a host with the role its name gives; every line is read at the runtime's time", async () => {
  const { db } = await bundle("cloudwatch-eks");
  const events = [...iterateEvents(db)];
  assert.equal(events.filter((e) => e.kind === LogKind.unparsed).length, 0);
  assert.deepEqual([...new Set(events.map((e) => `${e.host} ${e.role}`))].sort(), ["sglang-decode-0 decode", "sglang-prefill-0 prefill"]);
  const oom = events.find((e) => e.kind === LogKind.exception);
  // The scheduler's prefix states the second; the runtime's stamp in the record (not CloudWatch's, 14:07:11.204000) the rest.
  assert.deepEqual([oom?.host, oom?.tp, new Date(oom!.tsUs / 1000).toISOString()], ["sglang-decode-0", 0, "2026-06-11T14:07:11.204Z"]);
});

test("CloudWatch export: the decode scheduler's OOM is its death, the launcher's sigquit part of it; prefill's failed transfers follow", async () => {
  const { report } = await bundle("cloudwatch-eks");
  const deaths = violated(report, "process-failure");
  assert.equal(deaths.length, 1, JSON.stringify(deaths.map((f) => f.title)));
  assert.equal(deaths[0]!.severity, "critical");
  assert.deepEqual(deaths[0]!.ranks, ["decode/tp0"]);
  assert.match(deaths[0]!.title, /^decode\/tp0 died: torch\.OutOfMemoryError: CUDA out of memory/);
  assert.match(deaths[0]!.explanation, /Received sigquit from a child process/);
  const [transport] = violated(report, "transport-failure");
  assert.deepEqual(roomsOf(transport!).sort(), ["5830149913321000001", "7000000000000000007", "8972542885242963296"]);
  assert.match(transport!.explanation, /A process died first: decode\/tp0/);
  assert.equal(report.suspects[0]?.cause, "process-crash");
});
