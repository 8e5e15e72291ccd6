// `kubectl logs --timestamps`: every line prefixed by the runtime's RFC3339Nano
// time and a space, `2026-06-11T14:03:07.554102345Z <line>`.

import { readRfc3339 } from "./rfc3339.js";
import type { Unwrapped } from "./index.js";
import { perLineWrapper } from "./perLine.js";

// A Rust `tracing` line (Dynamo's runtime and frontend, the router) opens with the same RFC3339
// time and a space; then comes the level, padded to five (tracing-subscriber
// src/fmt/format/mod.rs FmtLevel: "TRACE", "DEBUG", " INFO", " WARN", "ERROR"), and the target.
// That is the line's own dialect, not a runtime's envelope: a file of such lines is not kubectl's.
const TRACING_AFTER_TIME = /^ ?(?:TRACE|DEBUG|INFO|WARN|ERROR) [A-Za-z_][\w.]*(?:::[\w.]+)*: /;

function unwrap(line: string): Unwrapped {
  const t = readRfc3339(line, 0);
  if (t === null || line.charCodeAt(t.end) !== 32) return { kind: "foreign", why: "no `kubectl logs --timestamps` time at the start" };
  return { kind: "line", inner: line.substring(t.end + 1), tsUs: t.us };
}

/** A line in kubectl's shape whose inner part is not a Rust tracing line's level and target. */
function matches(line: string): boolean {
  const u = unwrap(line);
  return u.kind === "line" && !TRACING_AFTER_TIME.test(u.inner);
}

export const kubectl = perLineWrapper("kubectl", unwrap, matches);
