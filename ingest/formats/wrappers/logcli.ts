// Grafana Loki's `logcli query` in its default output: every line after the
// entry's RFC 3339 time and its stream's labels, `{container="sglang",
// pod="sglang-decode-0"}`, padded with spaces to the widest label set of the
// answer (loki pkg/logcli/output/default.go FormatAndPrintln and padLabel;
// the labels as loghttp LabelSet.String writes them: sorted, Go-quoted,
// joined by ", "). Labels every stream shares are printed once on stderr,
// not on each line, so a line's set may be `{}`. The pod (else the host or
// the instance) is the line's host. `--no-labels` prints no set: that file
// reads as `kubectl logs --timestamps`.

import { readRfc3339 } from "./rfc3339.js";
import type { Unwrapped } from "./index.js";
import { perLineWrapper } from "./perLine.js";

const LABELS = /^\{(?:[A-Za-z_]\w*="(?:[^"\\]|\\.)*"(?:, (?=[A-Za-z_]))?)*\} +/;
/** Labels that name a machine, most specific first. */
const HOST_LABELS = ["pod", "pod_name", "host", "hostname", "node", "nodename", "instance"];

function unwrap(line: string): Unwrapped {
  const t = readRfc3339(line, 0);
  if (t === null || line.charCodeAt(t.end) !== 32) return { kind: "foreign", why: "no `logcli query` time and labels at the start" };
  const rest = line.substring(t.end + 1);
  const m = LABELS.exec(rest);
  if (m === null) return { kind: "foreign", why: "no `logcli query` label set after the time" };
  const host = hostOf(m[0]);
  return { kind: "line", inner: rest.substring(m[0].length), tsUs: t.us, ...(host !== undefined && { host }) };
}

function hostOf(labels: string): string | undefined {
  for (const name of HOST_LABELS) {
    const v = new RegExp(`[{ ]${name}="((?:[^"\\\\]|\\\\.)*)"`).exec(labels)?.[1];
    if (v !== undefined && v !== "") return v.replace(/\\(["\\])/g, "$1");
  }
  return undefined;
}

export const logcli = perLineWrapper("logcli", unwrap);
