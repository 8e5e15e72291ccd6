// CloudWatch Logs as `aws logs tail <group>` prints them in its default format,
// `detailed`: the event's time, its log stream's name and its message,
//   2026-12-07T16:10:11.137000+00:00 sglang/decode/3f2a9c1e0b7d4e21 <line>
// (aws-cli awscli/customizations/logs/tail.py DetailedLogEventsFormatter: the
// time is Python's `datetime.isoformat()` of a UTC datetime, so `+00:00`,
// never `Z`, with microseconds unless they are zero; the message right-
// stripped). The stream names the process that wrote the line: ECS's
// `<prefix>/<container>/<task id>`, an EC2 agent's instance id or host name, or,
// from a Kubernetes cluster's Fluent Bit, the container's log file name, whose
// pod (`<pod>_<namespace>_<container>-<id>.log`, kubelet's /var/log/containers
// link) is then the line's host; else the stream is. An event may hold several
// lines (an agent told to group a traceback): the lines after its first carry
// no prefix, and are the same stream's.

import { readRfc3339 } from "./rfc3339.js";
import type { LineUnwrapper, SingleWrapper, Unwrapped } from "./index.js";

/** A stream's name: no space; never a level word, which a logger's own ISO-time line puts there. */
const STREAM = /^[^\s[]\S*(?= |$)/;
const LEVEL_WORD = /^(?:trace|debug|info|notice|warn|warning|error|err|fatal|critical|crit)$/i;
/** kubelet's name for a container's log (pkg/kubelet/kuberuntime/kuberuntime_container.go, legacyLogSymlink). */
const CONTAINER_LOG = /^(?:.*containers[./])?([a-z0-9](?:[-a-z0-9.]*[a-z0-9])?)_[a-z0-9](?:[-a-z0-9]*[a-z0-9])?_[a-z0-9](?:[-a-z0-9]*[a-z0-9])?-[0-9a-f]{64}(?:\.log)?$/;

interface TailLine {
  tsUs: number;
  stream: string;
  message: string;
}

function readTailLine(line: string): TailLine | null {
  const t = readRfc3339(line, 0);
  if (t === null || !line.startsWith("+00:00 ", t.end - 6)) return null;
  const rest = line.substring(t.end + 1);
  const stream = STREAM.exec(rest)?.[0];
  if (stream === undefined || LEVEL_WORD.test(stream)) return null;
  return { tsUs: t.us, stream, message: rest.substring(stream.length + 1) };
}

function hostOfStream(stream: string): string {
  return CONTAINER_LOG.exec(stream)?.[1] ?? stream;
}

class TailUnwrapper implements LineUnwrapper {
  private host: string | undefined;

  unwrap(line: string): Unwrapped {
    const t = readTailLine(line);
    if (t === null) {
      // A line of a multi-line event: its stream's, at no time of its own.
      if (this.host !== undefined) return { kind: "line", inner: line, tsUs: -1, host: this.host };
      return { kind: "foreign", why: "no `aws logs tail` time and log stream at the start" };
    }
    this.host = hostOfStream(t.stream);
    return { kind: "line", inner: t.message, tsUs: t.tsUs, host: this.host };
  }

  end(): Unwrapped | null {
    return null;
  }
}

export const awsLogsTail: SingleWrapper = {
  name: "aws-logs-tail",
  matches: (line) => readTailLine(line) !== null,
  // A grouped traceback's lines have no prefix: half the head's lines, the first among them, are enough.
  continued: true,
  create: () => new TailUnwrapper(),
};
