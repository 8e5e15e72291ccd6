// A wrapper inside a wrapper: the envelope a collector put around lines that
// already had one. EKS's Container Insights sends each of Fluent Bit's JSON
// records to CloudWatch as the event's message (`aws logs tail` then prints
// `<time> <stream> {"log":"…","kubernetes":{…}}`); an agent ships a syslog
// file or a `docker compose logs` capture; a shipper ships the runtime's CRI
// lines. The outer wrapper is stripped first, then the inner one from the
// line it gives. The inner's time and host are the more precise (the runtime
// stamped the line, the pod wrote it) and come first; the outer's stand where
// the inner states none, and an instant before a stamp without a year. A line
// the inner does not wrap (a grouped event's later lines) is the outer's line
// as it stands.

import type { LineUnwrapper, SingleWrapper, Unwrapped, Wrapper, WrapperId } from "./index.js";

type Line = Extract<Unwrapped, { kind: "line" }>;

export function nestedWrapper(outer: SingleWrapper, inner: SingleWrapper): Wrapper {
  const name: WrapperId = `${outer.name}>${inner.name}`;
  return {
    name,
    matches: (line) => {
      const u = outer.create().unwrap(line);
      return u.kind === "line" && inner.matches(u.inner);
    },
    create: () => new NestedUnwrapper(outer.create(), inner.create()),
  };
}

class NestedUnwrapper implements LineUnwrapper {
  /** The outer line whose inner part opened the inner wrapper's open partial line. */
  private partialOuter: Line | null = null;

  constructor(
    private readonly outer: LineUnwrapper,
    private readonly inner: LineUnwrapper,
  ) {}

  unwrap(line: string): Unwrapped {
    const u = this.outer.unwrap(line);
    return u.kind === "line" ? this.through(u) : u;
  }

  end(): Unwrapped | null {
    const o = this.outer.end();
    if (o !== null && o.kind === "line") {
      const r = this.through(o);
      if (r.kind === "line") return r;
    }
    const i = this.inner.end();
    return i !== null && i.kind === "line" ? this.merged(this.partialOuter, i) : i;
  }

  private through(o: Line): Unwrapped {
    const i = this.inner.unwrap(o.inner);
    if (i.kind === "foreign") return o;
    if (i.kind === "partial") {
      this.partialOuter ??= o;
      return i;
    }
    if (i.kind === "own") return i;
    const first = this.partialOuter ?? o;
    this.partialOuter = null;
    return this.merged(first, i);
  }

  private merged(o: Line | null, i: Line): Line {
    if (o === null) return i;
    const out: Line = { kind: "line", inner: i.inner, tsUs: i.tsUs >= 0 ? i.tsUs : o.tsUs };
    const host = i.host ?? o.host;
    if (host !== undefined) out.host = host;
    // A stamp without a year (syslog's) only where neither states an instant.
    const stamp = out.tsUs >= 0 ? undefined : (i.stamp ?? o.stamp);
    if (stamp !== undefined) out.stamp = stamp;
    if (i.kernel ?? o.kernel) out.kernel = true;
    const boot = i.kernelSinceBootUs ?? o.kernelSinceBootUs;
    if (boot !== undefined) out.kernelSinceBootUs = boot;
    return out;
  }
}
