// Where a log may be cut into parts parsed on their own (ingest/load/sourceParts.ts): a line with SGLang's timed
// prefix, after a line that is complete in its wrapper. Such a line opens a record whatever came before it
// (./logParser.ts read()), so no record spans the cut and no partial wrapped line is open; and it is dated, so the
// dater (./dating.ts) times the undated records above it before it is emitted, and every record below it takes its
// time from it and the lines after it alone. Both parts of the cut see the same line as the seam.

import type { ParseContext } from "../format.js";
import { PrefixReader, PrefixResult } from "../sglang/prefix.js";
import { wrapperByName } from "../wrappers/index.js";
import { cleanIfPasted, stripCr, withoutGrepHead } from "./pasted.js";

export function isLogSeam(previous: string, line: string, ctx: ParseContext): boolean {
  let inner = withoutGrepHead(stripCr(line));
  if (ctx.wrapper !== undefined) {
    const wrapper = wrapperByName(ctx.wrapper);
    if (wrapper.create().unwrap(withoutGrepHead(stripCr(previous))).kind === "partial") return false;
    const u = wrapper.create().unwrap(inner);
    if (u.kind !== "line") return false;
    inner = u.inner;
  }
  inner = cleanIfPasted(inner);
  const c0 = inner.charCodeAt(0);
  return (c0 === 91 /* [ */ || c0 === 40) /* ( */ && new PrefixReader(ctx.tzOffsetMinutes).read(inner) === PrefixResult.ok;
}
