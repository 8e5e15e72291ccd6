// How times, sizes and KVPoll values read on the page.

import { KVPOLL_NAMES } from "../../domain/vocabulary.js";

export function kvPollName(state: number | null | undefined): string {
  if (state === null || state === undefined) return "—";
  return KVPOLL_NAMES[state] ?? String(state);
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

/** "2026-08-20 10:20:01.123456 UTC" from integer microseconds. */
export function formatUtc(tsUs: number): string {
  const ms = Math.floor(tsUs / 1000);
  const d = new Date(ms);
  const us = Math.round(tsUs - ms * 1000);
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}${pad(us, 3)}`
  );
}

/** Digits after the second that a step of `stepUs` needs. */
function fractionDigits(stepUs: number): number {
  return stepUs >= 1e6 ? 0 : stepUs >= 1e5 ? 1 : stepUs >= 1e4 ? 2 : stepUs >= 1e3 ? 3 : 6;
}

/** "14:05:40.25" UTC wall-clock time of a microsecond, with the precision the step needs. */
export function formatClock(tsUs: number, stepUs: number): string {
  const totalS = Math.floor(tsUs / 1e6);
  const d = new Date(totalS * 1000);
  const digits = fractionDigits(stepUs);
  const frac = digits ? `.${String(Math.floor(tsUs - totalS * 1e6)).padStart(6, "0").slice(0, digits)}` : "";
  return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${frac}`;
}

/** A signed offset from the incident start, with the precision the step needs. */
export function formatOffset(us: number, stepUs: number): string {
  const sign = us < 0 ? "−" : "+";
  const abs = Math.abs(us);
  const totalS = Math.floor(abs / 1e6);
  const h = Math.floor(totalS / 3600);
  const m = Math.floor((totalS % 3600) / 60);
  const s = totalS % 60;
  const frac = abs - totalS * 1e6;
  const digits = fractionDigits(stepUs);
  const fracText = digits ? `.${String(Math.floor(frac)).padStart(6, "0").slice(0, digits)}` : "";
  const clock = h ? `${h}:${pad(m)}:${pad(s)}` : m ? `${m}:${pad(s)}` : `${s}`;
  return `${sign}${clock}${fracText}${h || m ? "" : "s"}`;
}

export function formatDuration(us: number): string {
  if (us >= 60e6) return `${(us / 60e6).toFixed(1)} min`;
  if (us >= 1e6) return `${(us / 1e6).toFixed(2)} s`;
  if (us >= 1e3) return `${(us / 1e3).toFixed(2)} ms`;
  return `${Math.round(us)} µs`;
}


export function formatCount(n: number): string {
  return n.toLocaleString("en-US");
}
