// `docker compose logs` / `docker-compose up`: every line after the service's
// container name, padded to a column, and a bar — `sglang-1  | <line>` (Compose
// v2 names `<service>-<n>`, v1 `<project>_<service>_<n>`); with `--timestamps`
// the runtime's RFC3339Nano time follows the bar. The name may be coloured
// (ANSI escapes around it). The container is the line's host. Compose's own
// line for a container that stopped, `sglang-decode-1 exited with code 137`,
// carries no bar; the container it names is its host (../log/crash.ts).

import { containerExitOf } from "../log/crash.js";
import { lineAfterTime } from "./rfc3339.js";
import type { Unwrapped } from "./index.js";
import { perLineWrapper } from "./perLine.js";

const COMPOSE = /^(?:\x1b\[[\d;]*m)*([A-Za-z0-9][\w.-]*)(?:\x1b\[[\d;]*m)* +\|(?:\x1b\[[\d;]*m)*(?: |$)/;

function unwrap(line: string): Unwrapped {
  const m = COMPOSE.exec(line);
  if (m === null) {
    const exit = containerExitOf(line);
    if (exit !== null) return { kind: "line", inner: line, tsUs: -1, host: exit.container };
    return { kind: "foreign", why: "no `docker compose` service name and bar at the start" };
  }
  return lineAfterTime(line.substring(m[0].length), m[1]!);
}

export const compose = perLineWrapper("compose", unwrap);
