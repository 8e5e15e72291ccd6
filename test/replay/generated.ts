// Test support: a busier incident than the hand-written ones, written as probe
// JSONL files (DESIGN.md "Probe JSONL record") for one prefill and one decode
// host with two TP ranks each. Rooms overlap in time and reuse each other's
// decode pages; every seventh room frees its pages while its last chunk's
// write is still in flight.
// Deterministic for a given seed.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { uniformStream } from "../../fixtures/generator/prng.js";

interface Rec {
  ts: number;
  order: number;
  line: string;
}

const T0 = 1_787_220_900; // 2026-08-20 10:15:00 UTC

/** Writes `<dir>/p0/prefill-probe.jsonl` and `<dir>/d0/decode-probe.jsonl`; returns the number of records. */
export function writeBusyIncident(dir: string, rooms: number, seed = 7): number {
  const rand = uniformStream(seed);
  const files: Record<"p0" | "d0", Rec[]> = { p0: [], d0: [] };
  let order = 0;
  const add = (host: "p0" | "d0", t: number, tp: number, ev: string, fields: string): void => {
    const role = host === "p0" ? "prefill" : "decode";
    const ts = (T0 + t).toFixed(6);
    files[host].push({ ts: t, order: order++, line: `{"ts": ${ts}, "host": "${host}", "role": "${role}", "tp": ${tp}, "ev": "${ev}"${fields}}` });
  };
  const configFields = `, "backend": "nixl", "version": "0.5.16", "index_k_dtype": "bf16", "transfer_queues": 4`;
  add("p0", 0, 0, "config", configFields);
  for (let k = 0; k < rooms; k++) {
    const room = (8972542885242963296n + BigInt(k)).toString();
    const base = (k % 24) * 4;
    const start = 0.01 + k * 0.05;
    const aborted = k % 7 === 6;
    for (let tp = 0; tp < 2; tp++) {
      const r = `, "room": ${room}`;
      let t = start + tp * 0.001;
      const step = (): number => (t += 0.002 + rand() * 0.01);
      add("d0", t, tp, "req.arrive", `${r}, "rid": "rid-${k}"`);
      add("d0", step(), tp, "kv.alloc", `${r}, "pages": [[${base}, ${base + 4}]], "buffer": "index_k"`);
      add("d0", step(), tp, "kv.meta", `${r}, "pages": [[${base}, ${base + 4}]]`);
      add("p0", step(), tp, "req.arrive", `${r}, "rid": "rid-${k}"`);
      add("p0", step(), tp, "boot.msg", `${r}, "kind": "meta"`);
      add("p0", step(), tp, "kv.post", `${r}, "chunk": 0, "last": false, "pages": [[${1000 + base}, ${1002 + base}]], "queue": ${k % 4}`);
      add("p0", step(), tp, "kv.post", `${r}, "chunk": 1, "last": true, "pages": [[${1002 + base}, ${1004 + base}]], "queue": ${k % 4}`);
      add("p0", step(), tp, "kv.done", `${r}, "chunk": 0`);
      add("d0", step(), tp, "kv.notify", `${r}, "tag": "${room}_kv_0_0_${tp}"`);
      if (aborted) {
        // Decode gives up and frees its pages; chunk 1's write never reports done.
        add("d0", step(), tp, "kv.free", `${r}, "pages": [[${base}, ${base + 4}]]`);
        continue;
      }
      add("p0", step(), tp, "kv.done", `${r}, "chunk": 1`);
      add("d0", step(), tp, "kv.notify", `${r}, "tag": "${room}_kv_1_1_${tp}"`);
      add("d0", step(), tp, "kv.notify", `${r}, "tag": "${room}_aux"`);
      add("d0", step(), tp, "kv.poll", `${r}, "local": 4, "reduced": 4`);
      for (let layer = 0; layer < 3; layer++) {
        add("d0", step(), tp, "kernel.read", `${r}, "layer": ${layer}, "pages": [[${base}, ${base + 4}]], "buffer": "index_k", "consumer": -1`);
      }
      add("d0", step() + 0.3, tp, "kv.free", `${r}, "pages": [[${base}, ${base + 4}]]`);
    }
  }
  let total = 0;
  for (const host of ["p0", "d0"] as const) {
    const role = host === "p0" ? "prefill" : "decode";
    const lines = files[host].sort((a, b) => a.ts - b.ts || a.order - b.order).map((r) => r.line);
    mkdirSync(join(dir, host), { recursive: true });
    writeFileSync(join(dir, host, `${role}-probe.jsonl`), lines.join("\n") + "\n");
    total += lines.length;
  }
  return total;
}
