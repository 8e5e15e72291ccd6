// rdma-core's mlx5 provider reporting a failed RDMA work request on stderr (providers/mlx5/cq.c mlx5_parse_cqe and
// dump_cqe), under whichever transfer engine posted it: the line and the completion's dump are one transport error of
// the machine it names. The dump's words are those a user pasted in a public write-up of a failed send (status 0xd).

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines } from "./sglangHarness.js";

test("the provider's `got completion with error:` and its four dump lines are one transport error; the program's own words after it are its own", () => {
  const { events } = parseLines([
    "mlx5: gpu-node-3: got completion with error:",
    "00000000 00000000 00000000 00000000",
    "00000000 00000000 00000000 00000000",
    "00000000 00000000 00000000 00000000",
    "00000000 00008716 0a001f8e 000027d2",
    "completion was found in CQ with status 0xd",
  ]);
  assert.equal(events.length, 2);
  const [cqe, after] = events;
  assert.deepEqual([cqe!.kind, cqe!.attrs?.hostname, cqe!.attrs?.failureClass], [LogKind.transportError, "gpu-node-3", "transport"]);
  assert.equal(cqe!.text.split("\n").length, 5);
  assert.equal(after!.line, 6);
});
