// Advice only on what the evidence shows (issue "Every report agrees with
// itself", item 4): no index-K experiment for a model that has no index-K,
// and "the transfer engine reported the errors" only where a transfer
// engine's own log did. Each case is a hand-written bundle changed the way a
// different deployment would have written it.

import { after, test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanUp } from "./handBundles.js";
import { BUNDLES, incidentCopy } from "../sharedIncident.js";
import { scratchDir } from "../scratchDir.js";
import type { AnalysisReport } from "../../analyzer/rules/finding.js";

after(cleanUp);

/** A bundle copied into a scratch folder with each file's text rewritten, analyzed. */
async function variant(name: string, rewrite: (path: string, text: string) => string): Promise<AnalysisReport> {
  const dir = scratchDir("kvrewind-advice-");
  cpSync(join(BUNDLES, name), dir, { recursive: true });
  const paths = name === "decode-only-wedge" ? ["d0/decode-tp0.log", "d0/decode-tp1.log"] : ["p0/prefill-tp0.log", "d0/decode-tp0.log"];
  for (const p of paths) writeFileSync(join(dir, p), rewrite(p, readFileSync(join(dir, p), "utf8")));
  return (await incidentCopy({ cwd: dir, paths, name })).report;
}

/** The decode-only wedge as a Qwen3 deployment logs it: the model path and the loaded class name no index-K model. */
const asQwen = (_: string, text: string): string =>
  text.replaceAll("deepseek-ai/DeepSeek-V3.2", "Qwen/Qwen3-32B").replaceAll("type=DeepseekV32ForCausalLM", "type=Qwen3ForCausalLM");

test("a wedge of a model without index-K: the saturation experiment names transfer queues and no index-K dtype", async () => {
  const report = await variant("decode-only-wedge", asQwen);
  const saturation = report.suspects.find((s) => s.cause === "transfer-saturation");
  assert.ok(saturation, report.suspects.map((s) => s.cause).join(", "));
  assert.match(saturation.falsify, /SGLANG_DISAGGREGATION_QUEUE_SIZE/);
  assert.doesNotMatch(saturation.falsify, /index-K|fp8|dtype/, "no index-K advice for a model without index-K");
  assert.doesNotMatch(saturation.summary, /index-K/);
});

test("the same wedge of DeepSeek-V3.2 (index-K, dtype never stated) still says to read the dtype before trying one", async () => {
  const report = await variant("decode-only-wedge", (_, text) => text);
  const saturation = report.suspects.find((s) => s.cause === "transfer-saturation")!;
  assert.match(saturation.falsify, /index-K dtype is assumed/);
});

test("only the class name says which model ran (no server_args line): a Qwen3 class is enough to leave index-K out", async () => {
  const report = await variant("decode-only-wedge", (path, text) => asQwen(path, text).split("\n").filter((l) => !l.includes("server_args=")).join("\n"));
  const saturation = report.suspects.find((s) => s.cause === "transfer-saturation")!;
  assert.doesNotMatch(saturation.falsify, /index-K/);
});

test("transport failures that SGLang raised (no transfer-engine line): the suspect does not say the engine reported them", async () => {
  // The Mooncake engine's own glog lines removed: what is left are SGLang's PD failure lines.
  const report = await variant("mooncake-timeout-storm", (_, text) => text.split("\n").filter((l) => !/^[EWI]\d{4} /.test(l)).join("\n"));
  // `Session … failed.` is SGLang's Mooncake connector speaking (conn.py), not the engine.
  const transport = report.suspects.find((s) => s.cause === "transport-failure");
  assert.ok(transport, report.suspects.map((s) => s.cause).join(", "));
  assert.match(transport.summary, /the transfer path failed/);
  assert.doesNotMatch(transport.summary, /transfer engine/);
});

test("transport failures in Mooncake's own log: the suspect names Mooncake's log as the reporter", async () => {
  const report = await variant("mooncake-timeout-storm", (_, text) => text);
  const transport = report.suspects.find((s) => s.cause === "transport-failure");
  assert.ok(transport, report.suspects.map((s) => s.cause).join(", "));
  // The batch waits are the Mooncake store client's (mooncake-store transfer_task.cpp), named as the store's.
  assert.match(transport.summary, /the transfer engine's own log \(Mooncake and Mooncake store\) reported errors/);
});
