// Lines whose dialect states its level in a form first seen in users' pastes
// (ingest/formats/sglang/torchLines.ts): glog with its year. The lines are
// from pastes in public issue threads (the working half of test/corpus; the
// held-back half is never used to write tests).

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseOne, us } from "./sglangHarness.js";

test("glog with its year (`log_year_in_prefix`): dated by the line itself, an error from Mooncake's sources is that engine's", () => {
  const ev = parseOne("E20260106 06:43:02.966156  5793 ascend_direct_transport.cpp:820] Failed to connect to target: 172.17.0.16:25482, status: 103900");
  assert.equal(ev.tsUs, us("2026-01-06T06:43:02.966156Z"));
  assert.equal(ev.tsInferred, undefined);
  assert.equal(ev.kind, LogKind.transportError);
  assert.equal(ev.attrs?.engine, "mooncake");
  assert.equal(ev.attrs?.source, "ascend_direct_transport.cpp:820");
});
