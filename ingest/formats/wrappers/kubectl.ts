// `kubectl logs --timestamps`: every line prefixed by the runtime's RFC3339Nano
// time and a space, `2026-06-11T14:03:07.554102345Z <line>`.

import { readRfc3339 } from "./rfc3339.js";
import type { Unwrapped, Wrapper } from "./index.js";

function unwrap(line: string): Unwrapped {
  const t = readRfc3339(line, 0);
  if (t === null || line.charCodeAt(t.end) !== 32) return { kind: "foreign", why: "no `kubectl logs --timestamps` time at the start" };
  return { kind: "line", inner: line.substring(t.end + 1), tsUs: t.us };
}

export const kubectl: Wrapper = {
  name: "kubectl",
  matches: (line) => unwrap(line).kind === "line",
  create: () => ({ unwrap, end: () => null }),
};
