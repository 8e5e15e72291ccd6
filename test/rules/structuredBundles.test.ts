// Hand-written bundles of structured (JSON) logs (test/bundles/README.md): Dynamo
// with DYN_LOGGING_JSONL, whose frontend, SGLang prefill and SGLang decode each
// write one JSON object a record, saved as `kubectl logs <pod> > <pod>.log`.

import { after, test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { iterateEvents } from "../../store/read/events.js";
import { bundle, cleanUp, roomsOf, violated } from "./handBundles.js";

after(cleanUp);

test("Dynamo's JSONL: the decode's CUDA error is the cause, at its record's own time; the frontend's broken stream and prefill's failed transfers follow", async () => {
  const { report } = await bundle("dynamo-jsonl");
  const deaths = violated(report, "process-failure");
  const decode = deaths.find((f) => f.ranks.includes("decode"));
  assert.ok(decode, JSON.stringify(deaths.map((f) => f.title)));
  assert.equal(decode.severity, "critical");
  assert.equal(decode.ts, "2026-06-11T14:07:11.204Z");
  assert.match(decode.title, /RuntimeError: CUDA error: an illegal memory access was encountered/);
  // The traceback inside the record's message is that record's: its file line is the witness, once.
  assert.deepEqual(decode.witness.map((w) => w.text.split("\n").length), [1]);
  // The frontend's pod names no role (its file is its pod's: the host, test below).
  const frontend = deaths.find((f) => f.witness.some((w) => w.source === "dynamo-frontend-7d9c8b6f5-x2kqp.log"));
  assert.ok(frontend, JSON.stringify(deaths.map((f) => f.witness.map((w) => w.source))));
  assert.equal(frontend.ts, "2026-06-11T14:07:11.230Z");
  assert.match(frontend.title, /failed to join writer task: I\/O error: Broken pipe/);
  const [transport] = violated(report, "transport-failure");
  assert.deepEqual(roomsOf(transport!).sort(), ["5830149913321000001", "7000000000000000007", "8972542885242963296"]);
  assert.equal(transport!.ts, "2026-06-11T14:07:21.500Z");
  assert.match(transport!.explanation, /A process died first: decode at 2026-06-11T14:07:11\.204Z/);
  assert.equal(report.suspects[0]?.cause, "process-crash");
});

test("Dynamo's JSONL: every line is read, at the time its record states, on the pod its file names", async () => {
  const { db } = await bundle("dynamo-jsonl");
  const events = [...iterateEvents(db)];
  assert.equal(events.filter((e) => e.kind === LogKind.unparsed).length, 0);
  assert.deepEqual([...new Set(events.map((e) => e.host))].sort(), ["dynamo-frontend-7d9c8b6f5-x2kqp", "sglang-decode-0", "sglang-prefill-0"]);
  assert.ok(events.every((e) => !e.tsInferred), "each record states its own time");
});
