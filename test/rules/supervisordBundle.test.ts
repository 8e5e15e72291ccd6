// A hand-written bundle of one machine whose NIC failed (test/bundles/README.md, supervisord-nic-fatal): the machine's
// folder holds supervisord's log (the prefill server run as one of its programs), `dmesg -T` (the ConnectX NIC's firmware
// health check fails at 14:07:10, then a PCIe fatal error) and the prefill's own log (Mooncake's failed work requests,
// then a C++ terminate); the router's folder holds its env_logger lines; no decode side, no probe records.

import { after, test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { iterateEvents } from "../../store/read/events.js";
import { bundle, cleanUp, violated } from "./handBundles.js";

after(cleanUp);

test("supervisord and the kernel on one machine: the NIC's fatal error comes first and is the first suspect; the prefill's abort and supervisord's report of it follow", async () => {
  const { report } = await bundle("supervisord-nic-fatal");
  const [transport] = violated(report, "transport-failure");
  assert.ok(transport, "the NIC's fatal error is a transport failure");
  assert.match(transport.title, /NIC 0000:3b:00\.0: firmware fatal error 1/);
  assert.equal(transport.ts, "2026-06-11T14:07:10.000Z");
  assert.ok(transport.ranks.includes("machine gpu-node-1"), transport.ranks.join());
  const deaths = violated(report, "process-failure");
  const supervisord = deaths.find((f) => /sglang-prefill terminated by SIGABRT \(core dumped\), not expected/.test(f.title));
  assert.ok(supervisord, deaths.map((f) => f.title).join(" | "));
  assert.equal(supervisord.severity, "critical");
  assert.equal(supervisord.ts, "2026-06-11T14:07:12.518Z");
  // The router's errors sit in the terminate's group, but only the prefill died: the router failed.
  const terminate = deaths.find((f) => f.title.includes("Failed to post RDMA work request"));
  assert.match(terminate!.title, /^prefill\/tp0 died, and router failed: /);
  // A cause comes before its effect: the deaths came within seconds after the machine's transport failed.
  assert.equal(report.suspects[0]?.cause, "transport-failure");
  // The missing decode side is named, not read as clean.
  assert.ok(violated(report, "evidence-gap").some((f) => /no source/.test(f.title)));
});

test("supervisord, dmesg -T, SGLang with glog and env_logger: every line is read, each folder its own host", async () => {
  const { db } = await bundle("supervisord-nic-fatal");
  const events = [...iterateEvents(db)];
  assert.deepEqual(events.filter((e) => e.kind === LogKind.unparsed).map((e) => e.text), []);
  assert.deepEqual([...new Set(events.map((e) => e.host))].sort(), ["gpu-node-1", "router-0"]);
  const router = events.filter((e) => e.host === "router-0");
  assert.deepEqual(router.map((e) => [e.kind, e.attrs?.level]), [
    [LogKind.message, "info"],
    [LogKind.error, "error"],
    [LogKind.error, "error"],
  ]);
  // supervisord's line for a program that started is information; the one for its unexpected end is the crash.
  assert.equal(events.filter((e) => e.kind === LogKind.crash && e.attrs?.program === "sglang-prefill").length, 1);
  // The NIC's `Link down` is the kernel's line, read, not judged.
  assert.ok(events.some((e) => e.text.endsWith("Link down") && e.kind !== LogKind.error));
});
