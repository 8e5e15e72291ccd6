// SGLang's message templates (docs/log-templates.md), tried on the message
// after a line's prefix, cheapest first: every module rejects on the
// message's first character before any template regex runs.

import type { ParsedEvent } from "../../../domain/event.js";
import { parseBatchLine } from "./batchLine.js";
import { parseBootstrapLine } from "./bootstrapLines.js";
import { parseHicacheLine } from "./hicacheLines.js";
import { parseHttpAccess } from "./httpAccess.js";
import type { MatchResult } from "./match.js";
import { parsePdLine } from "./pdLines.js";
import { parseSchedulerLine } from "./schedulerLines.js";
import { parseTransferLine } from "./transferLines.js";

export function dispatchSglangMessage(line: string, at: number, ev: ParsedEvent): MatchResult {
  const c = line.charCodeAt(at);
  if (c === 80 /* P */ || c === 68 /* D */) {
    const batch = parseBatchLine(line, at);
    if (batch !== null) {
      ev.kind = batch.kind;
      if (batch.role !== undefined) ev.role = batch.role;
      ev.attrs = batch.attrs;
      return true;
    }
  }
  const pd = parsePdLine(line, at, ev);
  if (pd !== false) return pd;
  const transfer = parseTransferLine(line, at, ev);
  if (transfer !== false) return transfer;
  const bootstrap = parseBootstrapLine(line, at, ev);
  if (bootstrap !== false) return bootstrap;
  const scheduler = parseSchedulerLine(line, at, ev);
  if (scheduler !== false) return scheduler;
  const hicache = parseHicacheLine(line, at, ev);
  if (hicache !== false) return hicache;
  return parseHttpAccess(line, at, ev);
}
