// SGLang server logs (DESIGN.md "Inputs" 1; docs/protocol.md §1–§3, §6).
//
// A file is an SGLang log when lines of its head carry SGLang's prefix
//   "[" YYYY-MM-DD HH:MM:SS ("." mmm)? (" " TAG N)* "] " message
// or torch's bracketed c10 prefix (`[rank3]:[E820 …]`), inside a container
// wrapper or bare. Its lines are read by the shared log parser
// (./log/logParser.ts), which also takes the other dialects such files hold
// (tracebacks, faulthandler dumps, glog/absl, NCCL, print output) line by
// line; SGLang's own messages go through the template table (./templates/).

import type { InputFormat } from "./format.js";
import { headLines } from "./log/head.js";
import { isLogSeam } from "./log/logSeam.js";
import { LogParser } from "./log/logParser.js";
import { PrefixReader, PrefixResult } from "./sglang/prefix.js";
import { readTorchLine } from "./sglang/torchLines.js";

export const sglangLog: InputFormat = {
  name: "sglang-log",
  detect(head: string): boolean {
    const prefix = new PrefixReader(0);
    return headLines(head).some((line) => prefix.read(line) === PrefixResult.ok || (line.startsWith("[") && readTorchLine(line) !== null));
  },
  createParser: (ctx) => new LogParser(ctx),
  isSeam: isLogSeam,
};
