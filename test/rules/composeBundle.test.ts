// A hand-written bundle of a Docker Compose deployment (test/bundles/README.md, compose-exit): `docker compose up`'s
// output saved as one file, three services' lines behind their padded names and bars, and compose's own line for the
// decode container that stopped (`sglang-decode-1 exited with code 137`: no bar, no time).

import { after, test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { iterateEvents } from "../../store/read/events.js";
import { bundle, cleanUp, roomsOf, violated } from "./handBundles.js";

after(cleanUp);

test("docker compose: the decode container's exit with code 137 is its death, between its last line and the router's error; prefill's failed transfers follow", async () => {
  const { report } = await bundle("compose-exit");
  const deaths = violated(report, "process-failure");
  const decode = deaths.find((f) => f.ranks.some((r) => r.startsWith("decode")));
  assert.ok(decode, JSON.stringify(deaths.map((f) => f.title)));
  assert.equal(decode.severity, "critical");
  assert.match(decode.title, /sglang-decode-1 exited with code 137/);
  // The status line states no time: it stands between the decode's last batch (14:07:10) and the router's error (14:07:11).
  assert.deepEqual(decode.witness.map((w) => [w.line, w.tsInferred === true]), [[6, true]]);
  assert.ok(decode.ts! > "2026-06-11T14:07:10" && decode.ts! < "2026-06-11T14:07:11", decode.ts);
  // The router's broken stream: a router routes requests; it runs no scheduler.
  const router = deaths.find((f) => f.ranks.some((r) => r.startsWith("router")));
  assert.match(router!.explanation, /^Let router\S* route each request to a prefill and a decode server\./);
  const [transport] = violated(report, "transport-failure");
  assert.deepEqual(roomsOf(transport!).sort(), ["5830149913321000001", "7000000000000000007", "8972542885242963296"]);
  assert.equal(transport!.ts, "2026-06-11T14:07:21.000Z");
  assert.match(transport!.explanation, /A process died first: decode/);
  assert.equal(report.suspects[0]?.cause, "process-crash");
});

test("docker compose: every line is read, each service its own host; the status line is the container's, with the signal its code names", async () => {
  const { db } = await bundle("compose-exit");
  const events = [...iterateEvents(db)];
  assert.equal(events.filter((e) => e.kind === LogKind.unparsed).length, 0);
  assert.deepEqual([...new Set(events.map((e) => e.host))].sort(), ["router-1", "sglang-decode-1", "sglang-prefill-1"]);
  const crash = events.find((e) => e.kind === LogKind.crash);
  assert.deepEqual([crash?.host, crash?.attrs?.signal], ["sglang-decode-1", "SIGKILL"]);
  // A file of several services is no one process's: the router's line takes no TP rank from the SGLang lines beside it.
  assert.equal(events.find((e) => e.host === "router-1")?.tp, null);
});
