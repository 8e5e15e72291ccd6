// `stern` (stern/stern, cmd/cmd.go): every line after the pod's and the
// container's names, the default template `{{color .PodColor .PodName}}
// {{color .ContainerColor .ContainerName}} {{.Message}}`, coloured or not
// (`{{.PodName}} {{.ContainerName}} {{.Message}}` with --color never). Only a
// Deployment's pod name is taken (`<name>-<pod-template-hash>-<5>`, the two
// generated parts in Kubernetes' alphabet, ../../inputs/podName.ts), so that two
// plain words at the start of a line are no wrapper. The pod is the line's host.

import { DEPLOYMENT_POD_NAME } from "../../inputs/podName.js";
import type { Unwrapped } from "./index.js";
import { perLineWrapper } from "./perLine.js";

const C = String.raw`(?:\x1b\[[\d;]*m)*`;
const STERN = new RegExp(`^${C}(${DEPLOYMENT_POD_NAME})${C} ${C}([a-z0-9](?:[-a-z0-9]*[a-z0-9])?)${C} `);

function unwrap(line: string): Unwrapped {
  const m = STERN.exec(line);
  if (m === null) return { kind: "foreign", why: "no `stern` pod and container names at the start" };
  return { kind: "line", inner: line.substring(m[0].length), tsUs: -1, host: m[1]! };
}

export const stern = perLineWrapper("stern", unwrap);
