// A colour for each event kind, so that marks say what they are: a family
// of hues per timeline component (scheduler blues, transfer greens,
// bootstrap violets, …), the fixed shade the kinds table gives the kinds
// every incident has (domain/kinds.ts), and a shade picked from the kind's
// name for the rest. Failures and warnings are drawn in red and orange
// whatever their kind (the event's tone).

import { fixedColourOfKind } from "../../domain/kinds.js";
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
  metrics: "#c792ea",
  traces: "#f78c6c",
  logs: "#8a93b0",
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
  return fixedColourOfKind(kind) ?? shadeOf(COMPONENT_COLORS[component], kind);
}

/** Kinds whose marks carry no name: a line kvrewind could not read says nothing by its kind. */
const UNNAMED = new Set(["log.unparsed"]);

/** The name a mark carries when its event has none of its own: the kind without its area (`kv.post` → `post`). */
export function shortKind(kind: string): string {
  if (UNNAMED.has(kind)) return "";
  const dot = kind.indexOf(".");
  return dot < 0 ? kind : kind.slice(dot + 1);
}
