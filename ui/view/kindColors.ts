// A colour for each event kind, so that marks say what they are: a family
// of hues per timeline component (scheduler blues, transfer greens,
// bootstrap violets, …), a fixed shade for the kinds every incident has, and
// a shade picked from the kind's name for the rest. Failures and warnings
// are drawn in red and orange whatever their kind (the event's tone).

import type { Component } from "../../domain/vocabulary.js";

export const ERROR_COLOR = "#ff5a6e";
export const WARN_COLOR = "#f0a04b";

export const COMPONENT_COLORS: Record<Component, string> = {
  scheduler: "#6f9cf0",
  transfer: "#4fc9a4",
  bootstrap: "#b48ef0",
  hicache: "#3cb6d8",
  kernels: "#93c56a",
  collectives: "#d7b55e",
  checksums: "#9aa6c8",
  logs: "#8a93b0",
};

const KNOWN: Record<string, string> = {
  "batch.prefill": "#6f9cf0",
  "batch.decode": "#9bb8ff",
  "sched.iter": "#4f7fd9",
  "req.arrive": "#a9c4f5",
  "req.finish": "#7fa6e6",
  "http.access": "#7d8fb8",
  "kv.meta": "#62b8a8",
  "kv.post": "#4fc9a4",
  "kv.notify": "#8de3c4",
  "kv.poll": "#35a587",
  "kv.done": "#2bb3a0",
  "kv.alloc": "#a5d8a0",
  "kv.free": "#72b86e",
  "xfer.notif_sent": "#5fd0b8",
  "xfer.aux_received": "#9ee8d8",
  "boot.msg": "#b48ef0",
  "boot.got_info": "#cfb1ff",
  "boot.bootstrapped": "#9e78e0",
  "boot.register": "#d9c2ff",
  "boot.metadata_sent": "#a98ae8",
  "hicache.load": "#3cb6d8",
  "hicache.layer": "#7fd3ea",
  "hicache.wait": "#2a93b5",
  "kernel.store": "#93c56a",
  "kernel.read": "#c0df8e",
  "coll.enter": "#e0bd5e",
  "coll.exit": "#b89a48",
  checksum: "#9aa6c8",
  config: "#a0a8c4",
  "log.unparsed": "#767f9c",
};

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** The family colour lightened or darkened by up to 25%, chosen by the kind's name. */
function shadeOf(hex: string, kind: string): string {
  const n = parseInt(hex.slice(1), 16);
  const f = 0.75 + (hash(kind) % 51) / 100;
  const c = (v: number) => Math.max(0, Math.min(255, Math.round(v * f)));
  return `#${[(n >> 16) & 255, (n >> 8) & 255, n & 255].map((v) => c(v).toString(16).padStart(2, "0")).join("")}`;
}

/** The colour of a kind's routine events; `tone` is the kind's own tone (2 failure, 1 warning). */
export function kindColor(kind: string, component: Component, tone: number): string {
  if (tone === 2) return ERROR_COLOR;
  if (tone === 1) return WARN_COLOR;
  return KNOWN[kind] ?? shadeOf(COMPONENT_COLORS[component], kind);
}

/** Kinds whose marks carry no name: a line kvrewind could not read says nothing by its kind. */
const UNNAMED = new Set(["log.unparsed"]);

/** The name a mark carries when its event has none of its own: the kind without its area (`kv.post` → `post`). */
export function shortKind(kind: string): string {
  if (UNNAMED.has(kind)) return "";
  const dot = kind.indexOf(".");
  return dot < 0 ? kind : kind.slice(dot + 1);
}
