// SGLang crash dumps (`--crash-dump-folder`; docs/telemetry.md "Crash dumps"):
// TokenizerManager.dump_requests_before_crash (python/sglang/srt/managers/
// tokenizer_manager.py) pickles, on SIGTERM/SIGQUIT or a fatal exception,
//
//   <folder>/<hostname>/crash_dump_<%Y-%m-%d_%H-%M-%S>.pkl
//   {"server_args": ServerArgs | None,
//    "requests": [(obj: GenerateReqInput, out: dict, created_time: float s, finished_time: float s), …],
//    "launch_command": " ".join(sys.argv)}
//
// `requests` is crash_dump_request_list (the requests that finished in the
// last 300 s, record_request_for_crash_dump) followed by the unfinished ones
// of rid_to_state, whose out is {} (older revisions), their last streamed
// output or get_crash_dump_output() (text, output_ids), and whose
// "finished_time" is the time of the dump. A request is finished when its
// out's meta_info has a finish_reason.
//
// Events: one `crash.dump` at the dump's time (the unfinished requests'
// stamp, else the file name's local time), one `crash.request` per request
// at its creation. A pickle has no lines: the dump itself is record 1 and
// request i (from 1) is record i + 1, so that each has a text of its own. SGLang's classes come out as
// plain data (./pickleData.ts); a dump of another version keeps its fields as
// found (the event's text is the request as read); a field this reader
// cannot find is left out, never guessed.

import { z } from "zod";
import type { ParsedEvent, ParseIssue } from "../../domain/event.js";
import { TelemetryKind } from "../../domain/kinds.js";
import type { Role } from "../../domain/vocabulary.js";
import type { InputFormat, ParseContext } from "./format.js";
import { epochUsFromValue, intFromValue } from "./numerals.js";
import { readPickle, startsLikePickle } from "./pickleData.js";
import { isPlainObject } from "./records.js";
import { roomFromTraceValue } from "./traces/sglangSpans.js";

const MAX_DUMP_BYTES = 256 * 1024 * 1024;

const dumpSchema = z.looseObject({
  requests: z.array(z.unknown()),
  server_args: z.unknown().optional(),
  launch_command: z.string().nullish(),
});

/** A crash dump pickle: its top dict's keys are in the first bytes (server_args first, then its class path). */
export function isCrashDumpPickle(head: Buffer): boolean {
  if (!startsLikePickle(head)) return false;
  const text = head.toString("latin1");
  return text.includes("server_args") && (text.includes("requests") || text.includes("sglang.srt.server_args"));
}

/** The dump time a file name `crash_dump_2026-11-20_04-20-00.pkl` gives, in the zone its server's clock was in. */
export function dumpTimeFromName(path: string, tzOffsetMinutes: number): number | undefined {
  const m = /crash_dump_(\d{4})-(\d{2})-(\d{2})_(\d{2})-(\d{2})-(\d{2})/.exec(path.split(/[\\/]/).pop() ?? "");
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  return (Date.UTC(y, mo - 1, d, h, mi, s) - tzOffsetMinutes * 60_000) * 1000;
}

/** One dumped request, as far as its shape is known. */
interface DumpedRequest {
  entry: unknown;
  obj: Record<string, unknown>;
  out: Record<string, unknown>;
  createdUs?: number;
  stampUs?: number;
  finished: boolean;
}

function dumpedRequest(entry: unknown): DumpedRequest {
  const parts = Array.isArray(entry) ? entry : [entry];
  const obj = isPlainObject(parts[0]) ? parts[0] : {};
  const out = isPlainObject(parts[1]) ? parts[1] : {};
  const meta = isPlainObject(out.meta_info) ? out.meta_info : {};
  const req: DumpedRequest = { entry, obj, out, finished: meta.finish_reason !== undefined && meta.finish_reason !== null };
  const created = epochUsFromValue(parts[2]);
  if (created !== undefined) req.createdUs = created;
  const stamp = epochUsFromValue(parts[3]);
  if (stamp !== undefined) req.stampUs = stamp;
  return req;
}

function finishReason(meta: Record<string, unknown>): string | undefined {
  const r = meta.finish_reason;
  if (typeof r === "string") return r;
  return isPlainObject(r) && typeof r.type === "string" ? r.type : undefined;
}

/** A batch request carries lists of rids and rooms: its i-th is one request. */
function nth(v: unknown, i: number): unknown {
  return Array.isArray(v) ? v[i] : v;
}

function requestEvents(req: DumpedRequest, line: number, dumpedAtUs: number | undefined): ParsedEvent[] {
  const meta = isPlainObject(req.out.meta_info) ? req.out.meta_info : {};
  const rids = Array.isArray(req.obj.rid) ? req.obj.rid.length : 1;
  const text = JSON.stringify(req.entry);
  const events: ParsedEvent[] = [];
  for (let i = 0; i < rids; i++) {
    const attrs: Record<string, unknown> = { finished: req.finished };
    if (req.createdUs !== undefined) attrs.createdUs = req.createdUs;
    if (req.finished && req.stampUs !== undefined) attrs.finishedUs = req.stampUs;
    const prompt = intFromValue(meta.prompt_tokens) ?? (Array.isArray(req.obj.input_ids) && req.obj.input_ids.every((t) => typeof t === "number") ? req.obj.input_ids.length : undefined);
    if (prompt !== undefined) attrs.promptTokens = prompt;
    const output = intFromValue(meta.completion_tokens) ?? (Array.isArray(req.out.output_ids) ? req.out.output_ids.length : undefined);
    if (output !== undefined) attrs.outputTokens = output;
    const reason = finishReason(meta);
    if (reason !== undefined) attrs.finishReason = reason;
    const tsUs = req.createdUs ?? dumpedAtUs;
    if (tsUs === undefined) continue;
    const ev: ParsedEvent = { tsUs, line, kind: TelemetryKind.crashRequest, text, attrs };
    const room = roomFromTraceValue(nth(req.obj.bootstrap_room, i));
    if (room !== undefined) ev.room = room;
    const rid = nth(req.obj.rid, i);
    if (typeof rid === "string" && rid !== "") ev.rid = rid;
    events.push(ev);
  }
  return events;
}

function roleOf(serverArgs: unknown): Role | undefined {
  const mode = isPlainObject(serverArgs) ? serverArgs.disaggregation_mode : undefined;
  return mode === "prefill" || mode === "decode" ? mode : undefined;
}

function dumpEvents(dump: unknown, ctx: ParseContext, out: ParsedEvent[], issues: ParseIssue[]): void {
  const parsed = dumpSchema.safeParse(dump);
  if (!parsed.success) {
    issues.push({ line: 1, message: "not an SGLang crash dump: no requests list in the pickled dict; not read" });
    return;
  }
  const { requests, server_args: serverArgs, launch_command: launchCommand } = parsed.data;
  const reqs = requests.map(dumpedRequest);
  const unfinished = reqs.filter((r) => !r.finished);
  const stamps = unfinished.flatMap((r) => (r.stampUs !== undefined ? [r.stampUs] : []));
  const dumpedAtUs = stamps.length > 0 ? Math.max(...stamps) : dumpTimeFromName(ctx.sourcePath, ctx.tzOffsetMinutes);
  const role = roleOf(serverArgs);
  const events: ParsedEvent[] = [];
  if (dumpedAtUs === undefined) {
    issues.push({ line: 1, message: "crash dump time unknown: no unfinished request's stamp and no crash_dump_<time> file name; the dump itself is not placed" });
  } else {
    const attrs: Record<string, unknown> = { dumpedAtUs, requests: requests.length, unfinished: unfinished.length };
    if (typeof launchCommand === "string") attrs.launchCommand = launchCommand;
    if (isPlainObject(serverArgs)) attrs.serverArgs = serverArgs;
    // The dump as found, its requests (each an event of its own) counted.
    const text = JSON.stringify({ ...parsed.data, requests: requests.length });
    events.push({ tsUs: dumpedAtUs, line: 1, kind: TelemetryKind.crashDump, text, attrs });
  }
  reqs.forEach((req, i) => {
    const made = requestEvents(req, i + 2, dumpedAtUs);
    if (made.length === 0) issues.push({ line: i + 2, message: `crash dump request ${i + 1} has no creation time and the dump none either; not placed` });
    events.push(...made);
  });
  if (role !== undefined) for (const ev of events) ev.role = role;
  events.sort((a, b) => a.tsUs - b.tsUs);
  out.push(...events);
}

export const sglangCrashDump: InputFormat = {
  name: "sglang-crash-dump",
  detect: () => false,
  detectBytes: isCrashDumpPickle,
  createParser() {
    throw new Error("an SGLang crash dump is read whole (parseBytes), not by lines");
  },
  parseBytes(bytes, ctx, out, issues) {
    if (bytes.length > MAX_DUMP_BYTES) {
      issues.push({ line: 1, message: "crash dump larger than 256 MiB; not read" });
      return;
    }
    let dump: unknown;
    try {
      dump = readPickle(bytes);
    } catch (e) {
      issues.push({ line: 1, message: `crash dump pickle could not be read: ${(e as Error).message}` });
      return;
    }
    dumpEvents(dump, ctx, out, issues);
  },
};
