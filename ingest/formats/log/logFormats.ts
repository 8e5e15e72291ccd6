// The log formats other than SGLang's own (./../sglangLog.ts): a file whose
// head holds glog/absl lines (Mooncake's transfer engine, NIXL and UCX, torch
// c10) is a `glog` file; any other text file is `text`, read line by line by
// the same parser — no text file is skipped, and what is not understood is
// kept as `log.unparsed`, counted and shown.

import type { InputFormat } from "../format.js";
import { readTorchLine } from "../sglang/torchLines.js";
import { headLines } from "./head.js";
import { isLogSeam } from "./logSeam.js";
import { LogParser } from "./logParser.js";

export const glogLog: InputFormat = {
  name: "glog",
  detect: (head) => headLines(head).some((line) => line.length > 6 && !line.startsWith("[") && readTorchLine(line) !== null),
  createParser: (ctx) => new LogParser(ctx),
  isSeam: isLogSeam,
};

/** Last in detection order: every text file that is no other format. */
export const textLog: InputFormat = {
  name: "text",
  detect: () => true,
  createParser: (ctx) => new LogParser(ctx),
  isSeam: isLogSeam,
};
