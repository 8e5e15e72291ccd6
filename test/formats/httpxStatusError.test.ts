// httpx's error for a status the client raised on (httpx/_models.py Response.raise_for_status): `{error_type}
// '{status} {reason}' for url '{url}'` and, on its own line, `For more information check:
// https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/{status}`, with whatever the caller printed after the
// error. The second line is read: a 5xx but 503 is the request's failure, any other status the answer; the SGLang
// router's `No available workers (all circuits open or unhealthy)` (sgl-router src/routers/http/router.rs
// route_typed_request) is the request's failure whatever the status. The lines are written by hand in the shapes
// clients print them (a Ray actor's prefix, a logger's line, a bare print).

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines } from "./sglangHarness.js";

const NO_WORKERS =
  '{"error":{"type":"Service Unavailable","code":"no_available_workers","message":"No available workers (all circuits open or unhealthy)"}}';

test("a client's httpx error whose answer is the router's no available workers is the request's failure, a 503 though it is", () => {
  const { events, issues } = parseLines([
    "(RolloutWorker pid=4242) [2026-02-01 10:00:01] client.py:88 - Error: Server error '503 Service Unavailable' for url 'http://10.1.2.3:30000/generate'",
    `(RolloutWorker pid=4242) For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/503, retrying... (attempt 2/60, url=http://10.1.2.3:30000/generate, response=${NO_WORKERS})`,
  ]);
  assert.deepEqual(issues, []);
  const failed = events.filter((e) => e.kind === LogKind.httpFailed);
  assert.equal(failed.length, 1);
  assert.equal(failed[0]!.line, 2);
  assert.equal(failed[0]!.attrs?.status, 503);
  assert.equal(failed[0]!.attrs?.failureClass, "request");
  assert.equal(failed[0]!.attrs?.error, "the router answered 503: No available workers (all circuits open or unhealthy)");
});

test("the PD router's words for one side name the side's workers", () => {
  const { events } = parseLines([
    "For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/503 (body: No available prefill workers (all circuits open or unhealthy))",
  ]);
  assert.equal(events[0]!.kind, LogKind.httpFailed);
  assert.equal(events[0]!.attrs?.error, "the router answered 503: No available prefill workers (all circuits open or unhealthy)");
});

test("a server error other than 503 fails the request; a 503 alone, a 4xx or a redirect is the answer", () => {
  const { events } = parseLines([
    "For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/502",
    "For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/503",
    "For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/429, retrying in 2s",
    "For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/307",
  ]);
  assert.deepEqual(
    events.map((e) => [e.line, e.kind, e.attrs?.status]),
    [
      [1, LogKind.httpFailed, 502],
      [2, LogKind.httpAccess, 503],
      [3, LogKind.httpAccess, 429],
      [4, LogKind.httpAccess, 307],
    ],
  );
  assert.equal(events[0]!.attrs?.error, "the server answered 502");
});

test("other links for more information, and a router's words without httpx's line, are not httpx's error", () => {
  const { events } = parseLines([
    "For more information check: https://docs.example.com/errors/503",
    "For more information, check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/500",
    "No available workers (all circuits open or unhealthy)",
  ]);
  assert.ok(events.every((e) => e.kind !== LogKind.httpFailed && e.kind !== LogKind.httpAccess));
});
