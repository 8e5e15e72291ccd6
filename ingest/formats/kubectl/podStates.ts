// What Kubernetes says of a pod's end and of its containers' states, however
// it is printed (`kubectl describe pod`, `kubectl get pod -o json`, `kubectl
// cluster-info dump`): a container's Terminated state other than success is
// its process's death (kubernetes pkg/apis/core types.go ContainerStateTerminated:
// reason, exitCode, signal, message, startedAt, finishedAt); a pod whose
// status names one of POD_ENDS stopped as a whole.

/**
 * The pod-level reasons of a pod that stopped (kubernetes pkg/kubelet/eviction,
 * pkg/kubelet/nodeshutdown (`Shutdown`, later `Terminated`), pkg/util/node's `NodeLost`,
 * pkg/kubelet/lifecycle admission's `UnexpectedAdmissionError`): what each says
 * of it and how its end is classed.
 */
const POD_ENDS: Readonly<Record<string, { what: string; said: string; failureClass: string }>> = {
  Evicted: { what: "evicted by the kubelet", said: "pod evicted", failureClass: "evicted" },
  NodeLost: { what: "lost with its node", said: "pod lost: its node stopped answering", failureClass: "node-failure" },
  Shutdown: { what: "terminated by its node's shutdown", said: "pod terminated by its node's shutdown", failureClass: "node-shutdown" },
  Terminated: { what: "terminated by its node's shutdown", said: "pod terminated by its node's shutdown", failureClass: "node-shutdown" },
  UnexpectedAdmissionError: { what: "refused by the kubelet's admission", said: "pod refused at admission", failureClass: "admission" },
};

/** A process killed by signal n exits with 128 + n: 139 is SIGSEGV's (11). */
const SEGFAULT_EXIT = 139;

/** The attrs of a pod's end for its status reason, or undefined when the reason ends no pod; `message` the status's, when known. */
export function podEndAttrs(reason: string, message?: string): Record<string, unknown> | undefined {
  const end = POD_ENDS[reason];
  if (end === undefined) return undefined;
  const attrs: Record<string, unknown> = { scope: "pod", reason, what: end.what, fatal: true, failureClass: end.failureClass, error: end.said };
  if (message !== undefined) withPodEndMessage(attrs, message);
  return attrs;
}

/** A pod end's attrs with the status message that says why. */
export function withPodEndMessage(attrs: Record<string, unknown>, message: string): void {
  Object.assign(attrs, { message, error: `${attrs.error as string}: ${message}` });
}

/** One state of a container, as either printer gives it. */
export interface ContainerStateReading {
  container: string;
  /** `current` for the container's state, `last` for its last state (the run before a restart). */
  stateOf: "current" | "last";
  /** Running, Waiting or Terminated. */
  state: string;
  reason?: string;
  exitCode?: number;
  signal?: number;
  message?: string;
  restarts: number;
}

/** What a container's state says: a Terminated state other than success is a failure, with its class. */
export function containerStateAttrs(s: ContainerStateReading): Record<string, unknown> {
  const attrs: Record<string, unknown> = { scope: "pod", container: s.container, stateOf: s.stateOf, state: s.state };
  if (s.reason !== undefined) attrs.reason = s.reason;
  if (s.exitCode !== undefined) attrs.exitCode = s.exitCode;
  if (s.signal !== undefined) attrs.signal = s.signal;
  if (s.restarts > 0) attrs.restartCount = s.restarts;
  const failed = s.state === "Terminated" && (s.reason === "OOMKilled" || (s.exitCode !== undefined && s.exitCode !== 0));
  if (!failed) {
    attrs.level = s.state === "Waiting" && s.reason !== undefined && s.reason !== "ContainerCreating" && s.reason !== "PodInitializing" ? "warning" : "info";
    return attrs;
  }
  const restarts = s.restarts > 1 ? `; restarted ${s.restarts} times` : s.restarts === 1 ? "; restarted once" : "";
  attrs.what = `container ${s.container} terminated`;
  attrs.error = `container ${s.container} terminated: ${s.reason ?? "exit"} (exit code ${s.exitCode ?? "?"})${restarts}`;
  attrs.fatal = true;
  attrs.failureClass = s.reason === "OOMKilled" ? "container-oom" : s.exitCode === SEGFAULT_EXIT ? "segfault" : "crash";
  if (s.message !== undefined) attrs.message = s.message;
  return attrs;
}

/** Statuses `kubectl get pods` prints for a pod whose containers run or start as they should. */
const PODS_FINE = new Set(["Running", "Completed", "Succeeded", "ContainerCreating", "PodInitializing", "Pending"]);
/** `ExitCode:N` and `Signal:N`: a container that terminated without a reason, as printPod names it. */
const EXIT_STATUS = /^(ExitCode|Signal):(-?\d+)$/;
const SIGSEGV = 11;

/**
 * What the STATUS column of `kubectl get pods` says of the pod (kubectl
 * pkg/printers/internalversion/printers.go printPod: the pod's own reason,
 * else the last container's waiting or terminated reason, `Signal:N` or
 * `ExitCode:N`, `Init:…` while initialising, `Terminating`, `Unknown` for a
 * pod lost with its node): a termination other than success is the pod's
 * death, a pod-level end is its end (POD_ENDS), `CrashLoopBackOff` after
 * restarts the death of a container that keeps exiting, any other status
 * but a running or starting one (`ImagePullBackOff`, `NotReady`,
 * `Init:Error`, a back-off before any restart, …) a warning.
 */
export function podStatusAttrs(status: string, restarts: number): Record<string, unknown> {
  const end = podEndAttrs(status);
  if (end !== undefined) return { ...end, status, ...(restarts > 0 && { restartCount: restarts }) };
  const attrs: Record<string, unknown> = { scope: "pod", status };
  if (restarts > 0) attrs.restartCount = restarts;
  const exit = EXIT_STATUS.exec(status);
  const code = exit === null ? undefined : Number(exit[2]);
  // A back-off after restarts: the container kept exiting, and the kubelet waits before the next start.
  const backingOff = status === "CrashLoopBackOff" && restarts > 0;
  const failed = backingOff || status === "OOMKilled" || status === "Error" || status === "ContainerCannotRun" || status === "StartError" || (code !== undefined && code !== 0);
  if (!failed) {
    attrs.level = PODS_FINE.has(status) ? "info" : "warning";
    return attrs;
  }
  const segfault = (exit?.[1] === "Signal" && code === SIGSEGV) || (exit?.[1] === "ExitCode" && code === SEGFAULT_EXIT);
  const again = restarts > 1 ? `; restarted ${restarts} times` : restarts === 1 ? "; restarted once" : "";
  const what = backingOff ? "its container keeps exiting" : "its container terminated";
  return {
    ...attrs,
    what,
    error: `pod status ${status}: ${what}${again}`,
    fatal: true,
    failureClass: status === "OOMKilled" ? "container-oom" : segfault ? "segfault" : "crash",
  };
}
