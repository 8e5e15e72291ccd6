// How soon V8 collects the old generation in an analysis. Each stage of the
// analysis (the gap checks, the hypotheses' pass, each rule) holds its own
// per-room or per-key state for one pass over the blocks and drops it after;
// V8 lets the old generation grow to several times what survived its last
// full collection before collecting again (the heap growing factor), so
// without it the peak RSS is mostly the state of stages already done. A factor of 1.25
// (`--heap-growing-percent`, `node --v8-options`) collects sooner. It caps
// nothing: an incident whose live state needs more memory still gets it.

import { setFlagsFromString } from "node:v8";

/** A growing factor of 1 + HEAP_GROWING_PERCENT / 100 for the rest of the process. */
const HEAP_GROWING_PERCENT = 25;

export function collectSooner(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
