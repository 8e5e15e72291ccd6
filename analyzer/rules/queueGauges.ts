// The PD queue gauges a batch line prints (docs/protocol.md §2.1, §2.2):
// read by transfer-stall on their own, and beside the same queue's series
// when the telemetry shows the wedge (telemetryWedge.ts).

import { LogKind } from "../../domain/kinds.js";
import { SGLANG_SERIES } from "../../domain/telemetry.js";
import type { StoredEvent } from "../../store/read/events.js";
import { batchGauge, decodeAs } from "../events/decode.js";

/** The queue gauges batch lines print: the same numbers as SGLang's queue series (domain/telemetry.ts). */
export const GAUGES: readonly { kind: typeof LogKind.decodeBatch | typeof LogKind.prefillBatch; field: string; queue: string }[] = SGLANG_SERIES.flatMap((s) =>
  s.batchField === undefined ? [] : [{ kind: s.role === "decode" ? LogKind.decodeBatch : LogKind.prefillBatch, field: s.batchField, queue: s.label }],
);

/** A batch line's gauge, decoded. */
export function gauge(ev: StoredEvent, field: string): number | undefined {
  const line = decodeAs(ev, LogKind.prefillBatch, LogKind.decodeBatch);
  return line === undefined ? undefined : batchGauge(line, field);
}
