// UCX's fatal-error lines (ingest/formats/log/dialects/ucxFatalHead.ts: src/ucs/debug/assert.c
// ucs_fatal_error_message, each line through src/ucs/debug/log.c ucs_log_fatal_error, `[host:pid:thread:tid] `
// then `"%13s:%-4u %s"`). The first test's lines are the working half's ucx-5199-a, as pasted; the second's
// are written by hand from the two format strings (a short file right-aligned in 13 columns, a pid padded by
// `%-5d`), and lines of other programs that share a bracketed head.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines } from "./sglangHarness.js";

test("an mlx5 completion error printed on UCX's fatal path is UCX's transport error, its QP line a fatal UCX error", () => {
  const { events, issues } = parseLines([
    "[master:19546:0:19546] ib_mlx5_log.c:139  Transport retry count exceeded on mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)",
    "[master:19546:0:19546] ib_mlx5_log.c:139  DCI QP 0xa9f wqe[0]: SEND s-e [rqpn 0xa66 rlid 703] [inl len 18]",
    "[master:19545:0:19545] ib_mlx5_log.c:139  Transport retry count exceeded on mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)",
  ]);
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.line, e.kind, e.attrs?.engine, e.attrs?.errorKind]),
    [
      [1, LogKind.transportError, "ucx", "ucx_completion"],
      [2, LogKind.transportError, "ucx", "unrecognised"],
      [3, LogKind.transportError, "ucx", "ucx_completion"],
    ],
  );
  assert.equal(events[0]!.attrs?.error, "Transport retry count exceeded");
  assert.equal(events[0]!.attrs?.localNic, "mlx5_0:1");
  assert.equal(events[1]!.attrs?.level, "fatal");
});

test("a short file right-aligned and a padded pid are read; a bracketed head of another program is not UCX's", () => {
  const { events } = parseLines([
    "[gpu-7:4815 :1:4822]      ucp_ep.c:1661 ep 0x7f8b20022480: error 'Endpoint timeout' on rc_mlx5/mlx5_0:1 will not be handled since no error callback is installed",
    "[node-rtx3080.local:82049] pml_ucx.c:860  Error: ucx send failed: Input/output error",
    "[gpu-7:4815:1:4822] connection lost",
  ]);
  assert.deepEqual(
    events.map((e) => [e.line, e.kind, e.attrs?.errorKind]),
    [
      [1, LogKind.transportError, "ucx_unhandled"],
      [2, LogKind.error, undefined],
      [3, LogKind.unparsed, undefined],
    ],
    "Open MPI's `[host:pid] ` head and a head with no UCX file:line are not UCX's fatal path",
  );
});
