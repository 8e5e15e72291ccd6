// Slurm's `srun --label` (`-l`): every line after the task that wrote it,
// right-aligned to the widest task id and a colon, ` 3: <line>`, or with a
// heterogeneous job's component first, `P1  3: <line>` (slurm
// src/common/write_labelled_message.c _build_label, "%*d: "). A multi-node
// server started by one srun holds every node's lines in one file, one task
// per node: the task is the line's machine, named `task-3` (`P1-task-3`).
// srun's own lines (`srun: error: node-3: task 3: Killed`) reach the same
// stream unlabelled (src/common/log.c writes them to srun's own stderr): they,
// and slurmstepd's where they appear, are the stream's own, read as they stand.

import { readSlurmHead } from "../log/dialects/otherDialects.js";
import type { Unwrapped } from "./index.js";
import { perLineWrapper } from "./perLine.js";

const LABEL = /^(?:P(\d{1,4}) )? *(\d{1,6}): /;

function unwrap(line: string): Unwrapped {
  const m = LABEL.exec(line);
  if (m === null) return readSlurmHead(line) !== null ? { kind: "own" } : { kind: "foreign", why: "no `srun --label` task number at the start" };
  const task = `task-${Number(m[2])}`;
  return { kind: "line", inner: line.substring(m[0].length), tsUs: -1, host: m[1] === undefined ? task : `P${Number(m[1])}-${task}` };
}

export const srunLabel = perLineWrapper("srun-label", unwrap);
