// The Trace Event Format (the JSON object form that Perfetto and
// chrome://tracing open), as far as kvrewind's export uses it: a zod schema
// per phase, read from the format's specification, and the rules that span
// events — B/E balanced per thread, X slices of a thread nesting (Perfetto
// draws partly overlapping slices wrongly), each flow id begun once and ended
// once with the same name and category (Perfetto keys a flow by all three),
// and a name for every process and thread that holds an event.

import { z } from "zod";

const time = z.number().finite();
const id = z.number().int().nonnegative();
const args = z.record(z.string(), z.unknown());
const onThread = { name: z.string().min(1), ts: time, pid: id, tid: id };

const slice = z.object({ ph: z.literal("X"), ...onThread, cat: z.string().optional(), dur: time.nonnegative(), args: args.optional() });
const begin = z.object({ ph: z.literal("B"), ...onThread, cat: z.string().optional(), args: args.optional() });
const end = z.object({ ph: z.literal("E"), ts: time, pid: id, tid: id });
const instant = z.object({ ph: z.literal("i"), ...onThread, cat: z.string().optional(), s: z.enum(["g", "p", "t"]).optional(), args: args.optional() });
const flowId = z.union([id, z.string().min(1)]);
const flowStart = z.object({ ph: z.literal("s"), ...onThread, cat: z.string(), id: flowId, args: args.optional() });
const flowStep = z.object({ ph: z.literal("t"), ...onThread, cat: z.string(), id: flowId, args: args.optional() });
const flowEnd = z.object({ ph: z.literal("f"), ...onThread, cat: z.string(), id: flowId, bp: z.literal("e").optional(), args: args.optional() });
const counter = z.object({ ph: z.literal("C"), name: z.string().min(1), ts: time, pid: id, tid: id.optional(), args: z.record(z.string(), z.number().finite()).refine((a) => Object.keys(a).length > 0, "a counter needs a value") });
const named = z.object({ name: z.string().min(1) });
const sortIndex = z.object({ sort_index: z.number().int() });
const metadata = z.discriminatedUnion("name", [
  z.object({ ph: z.literal("M"), name: z.literal("process_name"), pid: id, args: named }),
  z.object({ ph: z.literal("M"), name: z.literal("process_sort_index"), pid: id, args: sortIndex }),
  z.object({ ph: z.literal("M"), name: z.literal("thread_name"), pid: id, tid: id, args: named }),
  z.object({ ph: z.literal("M"), name: z.literal("thread_sort_index"), pid: id, tid: id, args: sortIndex }),
]);

export const traceEventSchema = z.union([slice, begin, end, instant, flowStart, flowStep, flowEnd, counter, metadata]);
export type TraceEvent = z.infer<typeof traceEventSchema>;

export const traceFileSchema = z.object({
  traceEvents: z.array(traceEventSchema),
  displayTimeUnit: z.enum(["ms", "ns"]).optional(),
  otherData: z.record(z.string(), z.unknown()).optional(),
});
export type TraceFile = z.infer<typeof traceFileSchema>;

/** Parses a trace and checks the rules between its events; throws naming the first broken one. */
export function checkTrace(json: unknown): TraceFile {
  const trace = traceFileSchema.parse(json);
  const problems = [...unbalanced(trace.traceEvents), ...unnested(trace.traceEvents), ...unpairedFlows(trace.traceEvents), ...unnamed(trace.traceEvents)];
  if (problems.length) throw new Error(`not a well-formed trace: ${problems.slice(0, 5).join("; ")}${problems.length > 5 ? ` (and ${problems.length - 5} more)` : ""}`);
  return trace;
}

const threadOf = (e: { pid: number; tid?: number }) => `${e.pid}/${e.tid ?? e.pid}`;

/** Each E closes the latest open B of its thread, and none stays open. */
function unbalanced(events: readonly TraceEvent[]): string[] {
  const open = new Map<string, number>();
  const problems: string[] = [];
  const byTime = events.filter((e) => e.ph === "B" || e.ph === "E").sort((a, b) => a.ts - b.ts);
  for (const e of byTime) {
    const key = threadOf(e);
    const depth = (open.get(key) ?? 0) + (e.ph === "B" ? 1 : -1);
    if (depth < 0) problems.push(`an E on thread ${key} at ${e.ts} closes no B`);
    open.set(key, Math.max(0, depth));
  }
  for (const [key, depth] of open) if (depth > 0) problems.push(`${depth} B left open on thread ${key}`);
  return problems;
}

/** X slices of one thread either hold one another or do not meet. */
function unnested(events: readonly TraceEvent[]): string[] {
  const byThread = new Map<string, { ts: number; end: number; name: string }[]>();
  for (const e of events) {
    if (e.ph !== "X") continue;
    const list = byThread.get(threadOf(e)) ?? [];
    list.push({ ts: e.ts, end: e.ts + e.dur, name: e.name });
    byThread.set(threadOf(e), list);
  }
  const problems: string[] = [];
  for (const [thread, slices] of byThread) {
    slices.sort((a, b) => a.ts - b.ts || b.end - a.end);
    const stack: { end: number; name: string }[] = [];
    for (const s of slices) {
      while (stack.length && stack[stack.length - 1]!.end <= s.ts) stack.pop();
      const parent = stack[stack.length - 1];
      if (parent && s.end > parent.end) problems.push(`on thread ${thread}, '${s.name}' at ${s.ts} overlaps '${parent.name}' without nesting`);
      stack.push(s);
    }
  }
  return problems;
}

type FlowEvent = Extract<TraceEvent, { ph: "s" | "f" }>;

/** Every flow id has one start and one end, of the same name and category. */
function unpairedFlows(events: readonly TraceEvent[]): string[] {
  const flows = new Map<string, { s: FlowEvent[]; f: FlowEvent[] }>();
  for (const e of events) {
    if (e.ph !== "s" && e.ph !== "f") continue;
    const entry = flows.get(String(e.id)) ?? { s: [], f: [] };
    entry[e.ph].push(e);
    flows.set(String(e.id), entry);
  }
  const problems: string[] = [];
  for (const [flow, { s, f }] of flows) {
    if (s.length !== 1 || f.length !== 1) problems.push(`flow ${flow} has ${s.length} start(s) and ${f.length} end(s)`);
    else if (s[0]!.name !== f[0]!.name || s[0]!.cat !== f[0]!.cat) problems.push(`flow ${flow} ends under another name or category`);
  }
  return problems;
}

/** Every process and thread an event is on has a name (the global scope's pid 0 aside). */
function unnamed(events: readonly TraceEvent[]): string[] {
  const processes = new Set<number>();
  const threads = new Set<string>();
  for (const e of events) {
    if (e.ph === "M" && e.name === "process_name") processes.add(e.pid);
    if (e.ph === "M" && e.name === "thread_name") threads.add(threadOf(e));
  }
  const problems = new Set<string>();
  for (const e of events) {
    if (e.ph === "M" || (e.ph === "i" && e.s === "g")) continue;
    if (!processes.has(e.pid)) problems.add(`process ${e.pid} has no name`);
    if (e.ph !== "C" && !threads.has(threadOf(e))) problems.add(`thread ${threadOf(e)} has no name`);
  }
  return [...problems];
}

/** The events of one phase. */
export function eventsOf<P extends TraceEvent["ph"]>(trace: TraceFile, ph: P): Extract<TraceEvent, { ph: P }>[] {
  return trace.traceEvents.filter((e): e is Extract<TraceEvent, { ph: P }> => e.ph === ph);
}

/** The names of a trace's processes and threads, and both in their sort order ("p0/prefill TP0 transfer" for a thread). */
export function trackNames(trace: TraceFile): { process: Map<number, string>; thread: Map<number, string>; processOrder: string[]; threadOrder: string[] } {
  const meta = eventsOf(trace, "M");
  const process = new Map(meta.flatMap((e) => (e.name === "process_name" ? [[e.pid, e.args.name] as const] : [])));
  const thread = new Map(meta.flatMap((e) => (e.name === "thread_name" ? [[e.tid, e.args.name] as const] : [])));
  const ordered = (name: string) => meta.flatMap((e) => (e.name === name ? [e as Extract<typeof e, { args: { sort_index: number } }>] : [])).sort((a, b) => a.args.sort_index - b.args.sort_index);
  return {
    process,
    thread,
    processOrder: ordered("process_sort_index").map((e) => process.get(e.pid)!),
    threadOrder: ordered("thread_sort_index").map((e) => `${process.get(e.pid)} ${thread.get((e as { tid: number }).tid)}`),
  };
}
