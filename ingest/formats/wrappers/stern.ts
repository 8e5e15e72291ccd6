// `stern` (stern/stern, cmd/cmd.go): every line after the pod's and the
// container's names, the default template `{{color .PodColor .PodName}}
// {{color .ContainerColor .ContainerName}} {{.Message}}`, coloured or not
// (`{{.PodName}} {{.ContainerName}} {{.Message}}` with --color never). With
// `--timestamps` the message opens with the runtime's RFC 3339 time, or with
// `--timestamps=short` (stern 1.24) with `01-02 15:04:05`, month and day
// without a year, in the local time of the machine stern ran on. Only a name a
// controller gives a pod is taken (a Deployment's, a DaemonSet's or Job's
// generated suffix, a StatefulSet's or LeaderWorkerSet's ordinals,
// ../../inputs/podName.ts), so that two plain words at the start of a line are
// no wrapper. The pod is the line's host.

import { CONTROLLER_POD_NAME } from "../../inputs/podName.js";
import type { Unwrapped } from "./index.js";
import { perLineWrapper } from "./perLine.js";
import { lineAfterTime } from "./rfc3339.js";

const C = String.raw`(?:\x1b\[[\d;]*m)*`;
const STERN = new RegExp(`^${C}(${CONTROLLER_POD_NAME})${C} ${C}([a-z0-9](?:[-a-z0-9]*[a-z0-9])?)${C} `);
const SHORT_TIME = /^(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d) /;

function unwrap(line: string): Unwrapped {
  const m = STERN.exec(line);
  if (m === null) return { kind: "foreign", why: "no `stern` pod and container names at the start" };
  const host = m[1]!;
  const rest = line.substring(m[0].length);
  const s = SHORT_TIME.exec(rest);
  if (s === null) return lineAfterTime(rest, host);
  const [month, day, hour, minute, second] = s.slice(1).map(Number) as [number, number, number, number, number];
  return { kind: "line", inner: rest.substring(s[0].length), tsUs: -1, host, stamp: { month, day, hour, minute, second, fractionUs: 0 } };
}

export const stern = perLineWrapper("stern", unwrap);
