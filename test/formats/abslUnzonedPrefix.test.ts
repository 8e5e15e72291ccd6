// absl's log prefix before the program loaded a time zone (abseil-cpp absl/log/internal/log_format.cc
// FormatBoundedFields: `"%c0000 00:00:%02d.%06d %7d "`, the unix time in place of the date), as gRPC prints it at a
// Python process's exit (src/core/lib/surface/init.cc). Written by hand in that format.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines, us } from "./sglangHarness.js";

test("absl's prefix with the unix time is read: the level, the place and the instant it states", () => {
  const { events } = parseLines(["E0000 00:00:1733392801.123456   12345 nixl_agent.cpp:322] createBackend: unsupported backend 'GDS'"]);
  assert.deepEqual(
    [events[0]!.kind, events[0]!.attrs?.level, events[0]!.attrs?.source, events[0]!.tsUs],
    [LogKind.transportError, "error", "nixl_agent.cpp:322", us("2024-12-05T10:00:01.123456Z")],
  );
});

test("gRPC's timed-out wait for its own shutdown, at the process's exit, is a warning naming what follows; another error of gRPC's stays a failure", () => {
  const { events } = parseLines([
    "WARNING: All log messages before absl::InitializeLog() is called are written to STDERR",
    "E0000 00:00:1733392801.123456   12345 init.cc:229] grpc_wait_for_shutdown_with_timeout() timed out.",
    "E0000 00:00:1733392802.004113   12345 subchannel.cc:806] subchannel 0x55d7c0 {address=ipv4:10.0.4.21:2379}: connect failed (UNAVAILABLE: Connection refused)",
  ]);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.level, e.attrs?.fallbackPrint]),
    [
      [LogKind.message, "warning", undefined],
      [LogKind.message, "warning", "grpc.shutdown_wait_timed_out"],
      [LogKind.error, "error", undefined],
    ],
  );
  assert.match(String(events[1]!.attrs?.fallback), /printed while the process exits/);
});
