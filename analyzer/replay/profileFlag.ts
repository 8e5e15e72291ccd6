// The `--profile` flag: comma-separated key=value settings with the names of
// the probe `config` record (DESIGN.md), plus the version-derived behaviours
// for what-if replays, e.g.
//   --profile backend=nixl,version=0.5.14,index_k_dtype=bf16,hicache=on

import { z } from "zod";
import type { Profile } from "../model/api.js";

const onOff = z
  .enum(["on", "off", "true", "false", "yes", "no", "1", "0"])
  .transform((v) => v === "on" || v === "true" || v === "yes" || v === "1");
const count = z
  .string()
  .regex(/^\d+$/, "expected a whole number")
  .transform((v) => Number(v));
const seconds = z
  .string()
  .regex(/^\d+(\.\d+)?$/, "expected seconds, like 300 or 300.0")
  .transform((v) => Number(v));

const FlagSettings = z
  .object({
    backend: z.enum(["nixl", "mooncake"]),
    version: z
      .string()
      .regex(/^v?\d+\.\d+(\.\d+)?$/, "expected an SGLang version like 0.5.14")
      .transform((v) => v.replace(/^v/, "")),
    index_k_dtype: z.enum(["fp8", "bf16"]),
    page_size: count,
    kv_page_size: count,
    hicache: onOff,
    overlap: onOff,
    transfer_queues: count,
    queue_routing: z.enum(["room-mod", "dst-port-sum"]),
    abort_handling: z.enum(["fatal-assert", "failed-no-ack", "failed-ack"]),
    prefill_bootstrap_timeout: onOff,
    bootstrap_timeout_s: seconds,
    waiting_timeout_s: seconds,
    index_k_ragged_accessors_wait: onOff,
    index_k_bytes_per_token: count,
    host_index_k_page_stride: count,
    max_context: count,
  })
  .partial()
  .strict();

type FlagSettings = z.infer<typeof FlagSettings>;

const FIELD: { [K in keyof FlagSettings]-?: keyof Profile } = {
  backend: "backend",
  version: "version",
  index_k_dtype: "indexKDtype",
  page_size: "indexKPageSize",
  kv_page_size: "kvPageSize",
  hicache: "hicache",
  overlap: "overlap",
  transfer_queues: "transferQueues",
  queue_routing: "queueRouting",
  abort_handling: "abortHandling",
  prefill_bootstrap_timeout: "prefillBootstrapTimeout",
  bootstrap_timeout_s: "bootstrapTimeoutS",
  waiting_timeout_s: "waitingTimeoutS",
  index_k_ragged_accessors_wait: "indexKRaggedAccessorsWait",
  index_k_bytes_per_token: "indexKBytesPerTokenConfigured",
  host_index_k_page_stride: "hostIndexKPageStride",
  max_context: "maxContext",
};

/** The flag's names, for help texts. */
export const PROFILE_FLAG_KEYS = Object.keys(FIELD);

const KEY_OF = new Map<keyof Profile, string>(Object.entries(FIELD).map(([key, field]) => [field, key]));

/** The flag (and config record) name of a profile field, e.g. indexKDtype → index_k_dtype. */
export function flagKey(field: keyof Profile): string {
  return KEY_OF.get(field) ?? field;
}

/** Parses `--profile`; throws an Error that names the bad part. */
export function parseProfileFlag(text: string): Partial<Profile> {
  const raw: Record<string, string> = {};
  for (const part of text.split(",").map((p) => p.trim()).filter((p) => p.length > 0)) {
    const eq = part.indexOf("=");
    if (eq <= 0) throw new Error(`--profile: "${part}" is not key=value (keys: ${PROFILE_FLAG_KEYS.join(", ")})`);
    const key = part.slice(0, eq).trim();
    if (key in raw) throw new Error(`--profile: "${key}" is given twice`);
    raw[key] = part.slice(eq + 1).trim().toLowerCase();
  }
  const parsed = FlagSettings.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) =>
      i.code === "unrecognized_keys"
        ? `unknown key ${i.keys.map((k) => `"${k}"`).join(", ")} (keys: ${PROFILE_FLAG_KEYS.join(", ")})`
        : `${i.path.join(".")}: ${i.message}`,
    );
    throw new Error(`--profile: ${problems.join("; ")}`);
  }
  const out: Partial<Profile> = {};
  for (const [key, value] of Object.entries(parsed.data)) {
    (out as Record<string, unknown>)[FIELD[key as keyof FlagSettings]] = value;
  }
  return out;
}
