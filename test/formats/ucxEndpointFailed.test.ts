// UCX's record of a failed endpoint below the error level: the worker's error handler
// (src/ucp/core/ucp_worker.c ucp_worker_iface_error_handler, `ucs_debug("worker %p: error handler called for
// uct_ep %p: %s", …)`), which UCT calls when a transport endpoint failed and which sets the UCP endpoint failed
// with that status. The lines are written by hand in UCX's log format (src/ucs/debug/log.c, `[sec.usec]
// [host:pid:thread] file:line UCX  LEVEL message`); the DEBUG lines around it, which say nothing failed, stay
// messages.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines } from "./sglangHarness.js";

test("the worker's error handler at DEBUG is UCX's failed endpoint, with the status it names", () => {
  const { events, issues } = parseLines([
    "[1718093587.554102] [decode-1:88213:1]      uct_iface.c:326  UCX  DEBUG set ep 0x55a1c0ffe010 to failed state",
    "[1718093587.554110] [decode-1:88213:1]     ucp_worker.c:569  UCX  DEBUG worker 0x55a1c0f00e20: error handler called for uct_ep 0x55a1c0ffe010: Connection reset by remote peer",
    "[1718093587.554131] [decode-1:88213:1]     ucp_worker.c:2003 UCX  TRACE ucp_worker_arm returning Success",
    "[1718093588.101442] [decode-1:88213:0]         ucp_ep.c:131  UCX  DEBUG created ep 0x7f34ad59a0d8 to <no debug data> from api call",
  ]);
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.line, e.kind, e.attrs?.errorKind]),
    [
      [1, LogKind.message, undefined],
      [2, LogKind.transportError, "ucx_ep_failed"],
      [3, LogKind.message, undefined],
      [4, LogKind.message, undefined],
    ],
  );
  assert.equal(events[1]!.attrs?.engine, "ucx");
  assert.equal(events[1]!.attrs?.error, "Connection reset by remote peer");
  assert.equal(events[1]!.attrs?.endpoint, "0x55a1c0ffe010");
});

test("lines that mention an error handler in other words are not a failed UCX endpoint", () => {
  const { events } = parseLines([
    "[1718093587.554110] [decode-1:88213:1]     ucp_worker.c:569  UCX  DEBUG worker 0x55a1c0f00e20: error handler called",
    "worker 3: error handler called for request 17: retrying",
    "[1718093587.554220] [decode-1:88213:1]       ucp_ep.c:1401 UCX  DEBUG ep 0x7f34ad59a0d8: set_ep_failed status Destination is unreachable on lane[0]=0x55a1c0ffe010",
  ]);
  assert.ok(events.every((e) => e.kind !== LogKind.transportError), "the handler's whole sentence, with a uct_ep pointer and a status, is needed");
});
