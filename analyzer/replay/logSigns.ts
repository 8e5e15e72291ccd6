// What default SGLang logs (and probe records) reveal about the run's profile
// when no `config` record says it: backend-only lines, version-specific line
// formats, event-loop names in tracebacks, HiCache start-up lines. A line the
// parser read into an event shows its log template's declared signs
// (domain/templateSigns.ts, from the template table), found by the event's
// kind and attrs; text no template reads (start-up settings, traceback
// frames, failure reasons) is searched for in the stored records. Each sign
// cites the reference section it relies on. Version bounds come from the
// profile's CHANGES (model/profile.ts); those marked [inference] are derived
// from PR dates, not stated release contents.

import { launchCommandSettings } from "../../domain/launchCommand.js";
import type { Backend } from "../../domain/vocabulary.js";
import { CHANGES, maxVersionWithout, minVersionWith, SGLANG_RELEASES, type ChangeId } from "../model/profile.js";
import type { IncidentDb } from "../../store/db.js";
import { LogKind } from "../../domain/kinds.js";
import { TEMPLATE_SIGNS, type DeclaredSign, type SignEvent } from "../../domain/templateSigns.js";
import type { EventCursor } from "../../store/blocks/eventCursor.js";
import { eventTexts } from "../../store/eventText.js";
import { firstRecordsWith, type RecordMatch } from "./recordSearch.js";
import { firstLogEventWhere, firstRecordOf, firstRecordPerSource, firstRecordWithAttr } from "../../store/read/records.js";
import { firstSeqOfKinds } from "../../store/read/seqs.js";

/** The parallelism a server's `server_args=ServerArgs(…)` start-up line states. */
export interface Parallelism {
  role: "prefill" | "decode";
  /** What states it: the `server_args=ServerArgs(…)` line or the launch command. */
  statedIn: "server_args" | "the launch command";
  tpSize?: number;
  dpSize?: number;
  ppSize?: number;
  /** Machines one server runs on (ServerArgs.nnodes): each runs a block of its ranks. */
  nnodes?: number;
}

/** One thing the incident shows and what it implies. */
export interface Sign {
  seq: number;
  why: string;
  backend?: Backend;
  versionMin?: string;
  versionMax?: string;
  /** A lower version bound that holds only when the backend turns out to be this one. */
  versionMinIf?: { backend: Backend; version: string };
  overlap?: boolean;
  hicache?: boolean;
  hostIndexKPageStride?: number;
  parallelism?: Parallelism;
  /** The model keeps an index-K (NSA/DSA sparse attention) cache: an NSA pool line, or a server_args model path of such a model. */
  indexK?: boolean;
}

type Implication = Omit<Sign, "seq">;

/**
 * Substrings no log template reads that, all present in one log record, imply
 * something (pd = docs/protocol.md). Built per call, so the bounds follow the
 * profile's CHANGES.
 */
function textSignList(): { needles: string[]; implies: Implication }[] {
  return [
    // SGLang logs its settings at start-up: `logger.info(f"{server_args=}")` (sglang
    // python/sglang/srt/entrypoints/engine.py _launch_subprocesses), one line per server.
    { needles: ["server_args=ServerArgs(", "disaggregation_mode='prefill'"], implies: { why: "the prefill server_args start-up line" } },
    { needles: ["server_args=ServerArgs(", "disaggregation_mode='decode'"], implies: { why: "the decode server_args start-up line" } },
    // The launch command, where a terminal, a job table or a thread dump quotes it (domain/launchCommand.ts).
    ...(["prefill", "decode"] as const).flatMap((role) =>
      [" ", "="].map((sep) => ({ needles: [LAUNCH_NEEDLE, `--disaggregation-mode${sep}${role}`], implies: { why: `the ${role} launch command` } })),
    ),
    { needles: ["NIXL transfer encountered ERR"], implies: { backend: "nixl", why: "NIXL transfer ERR (docs/protocol.md §3.2)" } },
    { needles: ["NixlMsgGuard"], implies: { backend: "nixl", why: "the NIXL bootstrap GUARD in a traceback (docs/protocol.md §7.1)" } },
    {
      needles: ["KVSender transfer encountered an error."],
      implies: { backend: "nixl", versionMax: maxVersionWithout("transferWorkerQueues"), why: "NIXL inline-transfer poll error, only before the worker queues of #23967 (docs/protocol.md §6)" },
    },
    {
      needles: ["Aborted by decode-side abort notification."],
      implies: { backend: "nixl", versionMin: minVersionWith("nixlAbortHandler"), why: "NIXL prefill abort reason, from the ABORT handler of #30352 (docs/protocol.md §3.5, §7.1)" },
    },
    { needles: ["Transfer thread failed because of"], implies: { backend: "mooncake", why: "Mooncake transfer thread crash (docs/protocol.md §3.3)" } },
    { needles: ["remote mooncake session"], implies: { backend: "mooncake", why: "Mooncake failure reason (docs/protocol.md §3.5)" } },
    { needles: ["event_loop_overlap_disagg_"], implies: { overlap: true, why: "an overlap-schedule event loop in a traceback (docs/hicache-indexk.md §3.3)" } },
    { needles: ["event_loop_normal_disagg_"], implies: { overlap: false, why: "a normal (non-overlap) event loop in a traceback (docs/hicache-indexk.md §3.2)" } },
    { needles: ["host memory for hierarchical KV cache"], implies: { hicache: true, why: "HiCache host pool start-up line (docs/hicache-indexk.md §1.1)" } },
    {
      needles: ["NSATokenToKVPoolHost initialized with indexer page stride size:"],
      implies: { hicache: true, why: "NSA HiCache host pool start-up line (docs/hicache-indexk.md §1.2)" },
    },
    // model_runner.py logs the model's class after loading: `Load weight end. type=DeepseekV32ForCausalLM, …`.
    { needles: ["Load weight end. type="], implies: { why: "the model class of the `Load weight end` start-up line" } },
  ];
}

/**
 * Bump when the signs below change: signs stored by the derive step from an
 * older list are then looked for again (derivedSigns.ts). A change to the
 * profile's releases or CHANGES moves the bounds, so what is stored is keyed
 * by those too.
 */
const SIGNS_VERSION = 7;

/** What the stored signs were found under: this list and the profile's releases and CHANGES. */
export function signsKey(): string {
  return JSON.stringify([SIGNS_VERSION, SGLANG_RELEASES, CHANGES]);
}

/**
 * Every sign the incident shows, at most one per kind of sign (the first in
 * seq order). Finding them scans the log records' text, so the derive step
 * after ingest finds them once and stores them (derivedSigns.ts).
 */
export function findSigns(db: IncidentDb): Sign[] {
  const list = textSignList();
  const launchSets = new Set(list.flatMap((s, i) => (s.needles[0] === LAUNCH_NEEDLE ? [i] : [])));
  const records = firstRecordsWith(db, list.map((s) => s.needles), launchSets);
  return [...textSigns(list, records), ...templateSigns(db), ...batchLineSigns(db), ...notifTagSigns(db), ...probeSigns(db)].sort((a, b) => a.seq - b.seq);
}

/** Per text sign, the first record holding all its needles (`records`, in `list` order). */
function textSigns(list: ReturnType<typeof textSignList>, records: (RecordMatch | undefined)[]): Sign[] {
  const out: Sign[] = [];
  list.forEach((s, i) => {
    const record = records[i];
    if (!record) return;
    const sign: Sign = { seq: record.seq, ...s.implies };
    if (s.needles[0]!.startsWith("NSATokenToKVPoolHost")) {
      const m = /indexer page stride size:\s*(\d+)/.exec(record.text);
      if (m) sign.hostIndexKPageStride = Number(m[1]);
      sign.indexK = true;
    }
    if (s.needles[0] === "Load weight end. type=") {
      const indexK = modelClassIndexK(/Load weight end\. type=(\w+)/.exec(record.text)?.[1]);
      if (indexK === undefined) return;
      sign.indexK = indexK;
    }
    if (s.needles[0] === "server_args=ServerArgs(") Object.assign(sign, serverArgsSign(record.text, s.needles[1]!.includes("prefill") ? "prefill" : "decode"));
    if (s.needles[0] === LAUNCH_NEEDLE) Object.assign(sign, launchSign(record.text));
    out.push(sign);
  });
  return out;
}

/** Per sign the log templates declare, the first event of a template that declares it. */
function templateSigns(db: IncidentDb): Sign[] {
  const out: Sign[] = [];
  for (const declared of TEMPLATE_SIGNS) {
    const kinds = [...new Set(declared.events.map((e) => e.kind))];
    const seq = firstLogEventWhere(db, kinds, (ev) => declared.events.some((e) => isEventOf(e, ev)));
    if (seq !== null) out.push({ seq, ...implicationOf(declared) });
  }
  return out;
}

/** Whether a stored event is one a template makes: its kind, its constant attrs, and the attrs it always captures. */
function isEventOf(e: SignEvent, ev: EventCursor): boolean {
  if (ev.kind !== e.kind) return false;
  for (const key in e.attrs) if (ev.attr(key) !== e.attrs[key]) return false;
  return e.has.every((key) => ev.attr(key) !== undefined);
}

/** The bounds a declared sign implies under the profile's current CHANGES; the why last, as the text signs write it. */
function implicationOf(d: DeclaredSign): Implication {
  return {
    ...(d.backend !== undefined && { backend: d.backend }),
    ...(d.since !== undefined && { versionMin: minVersionWith(d.since as ChangeId) }),
    ...(d.until !== undefined && { versionMax: maxVersionWithout(d.until as ChangeId) }),
    ...(d.sinceIf !== undefined && { versionMinIf: { backend: d.sinceIf.backend, version: minVersionWith(d.sinceIf.change as ChangeId) } }),
    why: d.why,
  };
}

/**
 * What a server_args line states: its parallelism, its transfer backend, and
 * the settings the model depends on — the overlap schedule
 * (`disable_overlap_schedule`) and HiCache (`enable_hierarchical_cache`),
 * fields of sglang python/sglang/srt/server_args.py ServerArgs. The why names
 * each setting as the line states it.
 */
function serverArgsSign(text: string, role: Parallelism["role"]): Partial<Sign> {
  const int = (key: string): number | undefined => {
    const m = new RegExp(`[(, ]${key}=(\\d+)[,)]`).exec(text);
    return m ? Number(m[1]) : undefined;
  };
  const flag = (key: string): boolean | undefined => {
    const m = new RegExp(`[(, ]${key}=(True|False)[,)]`).exec(text);
    return m ? m[1] === "True" : undefined;
  };
  const parallelism: Parallelism = { role, statedIn: "server_args" };
  const tp = int("tp_size");
  const dp = int("dp_size");
  if (tp !== undefined) parallelism.tpSize = tp;
  if (dp !== undefined) parallelism.dpSize = dp;
  const pp = int("pp_size");
  if (pp !== undefined) parallelism.ppSize = pp;
  const nnodes = int("nnodes");
  if (nnodes !== undefined) parallelism.nnodes = nnodes;
  const out: Partial<Sign> = { parallelism };
  const stated: string[] = [];
  const model = /[(, ]model_path='([^']*)'/.exec(text)?.[1];
  if (model !== undefined) out.indexK = SPARSE_ATTENTION_MODELS.test(model);
  const backend = /disaggregation_transfer_backend='(nixl|mooncake)'/.exec(text)?.[1] as Backend | undefined;
  if (backend !== undefined) {
    out.backend = backend;
    stated.push(`disaggregation_transfer_backend='${backend}'`);
  }
  const noOverlap = flag("disable_overlap_schedule");
  if (noOverlap !== undefined) {
    out.overlap = !noOverlap;
    stated.push(`disable_overlap_schedule=${noOverlap ? "True" : "False"}`);
  }
  const hicache = flag("enable_hierarchical_cache");
  if (hicache !== undefined) {
    out.hicache = hicache;
    stated.push(`enable_hierarchical_cache=${hicache ? "True" : "False"}`);
  }
  if (stated.length > 0) out.why = `the ${role} server_args line states ${stated.join(", ")}`;
  return out;
}

const LAUNCH_NEEDLE = "sglang.launch_server";

/** What an SGLang launch command states, as serverArgsSign reads a server_args line: the why names each flag as given. */
function launchSign(text: string): Partial<Sign> {
  const line = text.split("\n").find((l) => l.includes(LAUNCH_NEEDLE)) ?? text;
  const launch = launchCommandSettings(line.slice(line.indexOf(LAUNCH_NEEDLE)));
  if (launch?.role === undefined) return {};
  const parallelism: Parallelism = { role: launch.role, statedIn: "the launch command" };
  if (launch.tpSize !== undefined) parallelism.tpSize = launch.tpSize;
  if (launch.dpSize !== undefined) parallelism.dpSize = launch.dpSize;
  if (launch.ppSize !== undefined) parallelism.ppSize = launch.ppSize;
  if (launch.nnodes !== undefined) parallelism.nnodes = launch.nnodes;
  const out: Partial<Sign> = { parallelism };
  if (launch.backend !== undefined) out.backend = launch.backend;
  if (launch.overlap !== undefined) out.overlap = launch.overlap;
  if (launch.hicache !== undefined) out.hicache = launch.hicache;
  if (launch.stated.length > 0) out.why = `the ${launch.role} launch command states ${launch.stated.join(", ")}`;
  return out;
}

/**
 * Model names of the architectures SGLang gives an NSA index-K cache
 * (python/sglang/srt/configs/model_config.py `is_deepseek_nsa`:
 * DeepseekV32ForCausalLM, GlmMoeDsaForCausalLM, … with `index_topk`; DeepSeek-V4's
 * indexer keys in mem_cache/hicache_storage.py). A name is weaker evidence than
 * the architecture [inference]; any other named model is read as having none.
 */
const SPARSE_ATTENTION_MODELS = /deepseek-v3\.2|deepseek-v4|glm-5/i;

/**
 * Whether a loaded model class has index-K: the NSA classes do; the classes
 * `is_deepseek_nsa` accepts only with `index_topk` in the HF config
 * (DeepseekV3ForCausalLM, MistralLarge3…, Pixtral…) cannot say; any other class has none.
 */
function modelClassIndexK(name: string | undefined): boolean | undefined {
  if (name === undefined || /^(DeepseekV3ForCausalLM|DeepseekV3ForCausalLMNextN|MistralLarge3ForCausalLM|PixtralForConditionalGeneration)$/.test(name)) return undefined;
  return /^(DeepseekV32|DeepseekV4|GlmMoeDsa)/.test(name);
}

/** The prefix-less message of a log record (pd §1: `[date time TAGS] message`). */
function message(text: string): string {
  const close = text.indexOf("] ");
  return text.startsWith("[") && close > 0 ? text.slice(close + 2) : text;
}

/**
 * The first PD prefill batch line (it carries `#inflight-req`) dates the run by
 * its fields (pd §2.1, §2.3); a decode batch line by its separator.
 */
function batchLineSigns(db: IncidentDb): Sign[] {
  const out: Sign[] = [];
  const texts = eventTexts(db);
  const prefill = firstRecordWithAttr(db, LogKind.prefillBatch, "#inflight-req");
  if (prefill) {
    const msg = message(texts.text(prefill.sourceId, prefill.line));
    const keys = msg.replace(/^Prefill batch(\.| \[\d+\],|,)\s*/, "").split(", ").map((kv) => kv.split(":")[0]!.trim());
    const seq = prefill.seq;
    if (msg.startsWith("Prefill batch.")) out.push({ seq, versionMax: maxVersionWithout("batchLineComma"), why: "`Prefill batch.` with a period (docs/protocol.md §2.3)" });
    else out.push({ seq, versionMin: minVersionWith("batchLineComma"), why: "`Prefill batch,` with a comma, after #9366 (docs/protocol.md §2.3) [inference: first after v0.5.3]" });
    if (keys.includes("#prealloc-req")) out.push({ seq, versionMax: maxVersionWithout("bootstrapReqField"), why: "prefill batch line names `#prealloc-req` (docs/protocol.md §2.1)" });
    if (keys.includes("#bootstrap-req")) {
      out.push({ seq, versionMin: minVersionWith("bootstrapReqField"), why: "prefill batch line names `#bootstrap-req` (docs/protocol.md §2.1)" });
      out.push(
        keys.includes("#optimistic-req")
          ? { seq, versionMin: minVersionWith("optimisticReq"), why: "prefill batch line has `#optimistic-req` (#30951, docs/protocol.md §2.1)" }
          : { seq, versionMax: maxVersionWithout("optimisticReq"), why: "prefill batch line lacks `#optimistic-req`, printed on PD prefill from v0.5.16 (docs/protocol.md §2.1)" },
      );
    }
    if (!msg.startsWith("Prefill batch.")) {
      out.push(
        keys.includes("#pending-token")
          ? { seq, versionMin: minVersionWith("pendingToken"), why: "prefill batch line has `#pending-token` (docs/protocol.md §2.1)" }
          : { seq, versionMax: maxVersionWithout("pendingToken"), why: "prefill batch line lacks `#pending-token`, printed from v0.5.11 (docs/protocol.md §2.1)" },
      );
      const graph = keys.findIndex((k) => / graph$/.test(k));
      const throughput = keys.indexOf("input throughput (token/s)");
      if (graph >= 0 && throughput >= 0) {
        out.push(
          graph > throughput
            ? { seq, versionMax: maxVersionWithout("batchLineThroughputLast"), why: "prefill batch line prints the graph flag after the throughput (docs/protocol.md §2.3)" }
            : { seq, versionMin: minVersionWith("batchLineThroughputLast"), why: "prefill batch line prints the throughput last (docs/protocol.md §2.3)" },
        );
      }
    }
  }
  // An era's separator is on every batch line of a source, so each source's first one tells.
  const decodes = firstRecordPerSource(db, LogKind.decodeBatch);
  const decode = decodes.find((d) => message(texts.text(d.sourceId, d.line)).startsWith("Decode batch."));
  if (decode) out.push({ seq: decode.seq, versionMax: maxVersionWithout("batchLineComma"), why: "`Decode batch.` with a period (docs/protocol.md §2.3)" });
  return out;
}

/**
 * The NIXL kv notification tag `{room}_kv_{chunk}_{is_last}` gained a fifth
 * field with #15027 (2025-12-13) (pd §6). [inference] That PR predates #23967
 * (2026-05-07, first in v0.5.12), so a four-field tag means v0.5.11 or older,
 * and it postdates v0.5.3. Read from the tag's fields the ingest decoded: the
 * first `sending kvcache … with notif` line, when its tag is a kv tag, and
 * the first probe notification of a kv tag.
 */
function notifTagSigns(db: IncidentDb): Sign[] {
  const fromLog = firstRecordOf(db, LogKind.notifSent);
  const fromProbe = firstRecordOf(db, "kv.notify", { key: "tagKind", values: KV_TAG_KINDS });
  const out: Sign[] = [];
  for (const found of [fromLog, fromProbe]) {
    if (!found || !KV_TAG_KINDS.includes(found.attrs?.["tagKind"])) continue;
    if (found.attrs?.["src"] === undefined) out.push({ seq: found.seq, versionMax: maxVersionWithout("notifTagSourceField"), why: "four-field kv notification tag, before #15027 (docs/protocol.md §6) [inference]" });
    else out.push({ seq: found.seq, versionMin: minVersionWith("notifTagSourceField"), why: "kv notification tag with a source field, #15027 (docs/protocol.md §6) [inference]" });
  }
  return out;
}

const KV_TAG_KINDS: readonly unknown[] = ["kv", "kv_part"];

/** Probe records of HiCache loads exist only when HiCache runs. */
function probeSigns(db: IncidentDb): Sign[] {
  const seq = firstSeqOfKinds(db, ["hicache.load", "hicache.layer"]);
  return seq === null ? [] : [{ seq, hicache: true, why: "probe records of HiCache layer loads" }];
}
