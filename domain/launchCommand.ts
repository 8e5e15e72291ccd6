// SGLang's launch command as a shell, a job table or a thread dump quotes it back (`python3 -m
// sglang.launch_server --model-path … --disaggregation-mode decode --tp-size 8`): the flags of
// python/sglang/srt/server_args.py ServerArgs.add_cli_args, which argparse takes as `--flag value` or
// `--flag=value`. The role is `--disaggregation-mode` (choices `null`, `prefill`, `decode`); the
// parallelism `--tensor-parallel-size`/`--tp-size`/`--tp`, `--data-parallel-size`/`--dp-size`/`--dp`,
// `--pipeline-parallel-size`/`--pp-size`, `--nnodes`; the transfer backend
// `--disaggregation-transfer-backend`; the overlap schedule and HiCache the switches
// `--disable-overlap-schedule` and `--enable-hierarchical-cache`.

import type { Backend, Role } from "./vocabulary.js";

const LAUNCH_SERVER = /\bsglang\.launch_server\b/;

function flagValue(command: string, names: string): string | undefined {
  return new RegExp(`(?:^|\\s)--(?:${names})(?:=|\\s+)["']?([^\\s"']+)`).exec(command)?.[1];
}

function hasSwitch(command: string, name: string): boolean {
  return new RegExp(`(?:^|\\s)--${name}(?=\\s|$)`).test(command);
}

function count(command: string, names: string): number | undefined {
  const v = flagValue(command, names);
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
}

/** The role a launch command gives its server; undefined when it states none (a plain server, another program). */
export function roleOfLaunchCommand(command: string): Role | undefined {
  const mode = flagValue(command, "disaggregation-mode");
  return mode === "prefill" || mode === "decode" ? mode : undefined;
}

/** What a launch command states of its server, each setting as the command names it in `stated`. */
export interface LaunchSettings {
  role?: "prefill" | "decode";
  backend?: Backend;
  tpSize?: number;
  dpSize?: number;
  ppSize?: number;
  nnodes?: number;
  overlap?: false;
  hicache?: true;
  stated: string[];
}

/** The settings an SGLang launch command states; undefined for any other command. */
export function launchCommandSettings(command: string): LaunchSettings | undefined {
  if (!LAUNCH_SERVER.test(command)) return undefined;
  const out: LaunchSettings = { stated: [] };
  const role = roleOfLaunchCommand(command);
  if (role === "prefill" || role === "decode") out.role = role;
  const backend = flagValue(command, "disaggregation-transfer-backend");
  if (backend === "nixl" || backend === "mooncake") {
    out.backend = backend;
    out.stated.push(`--disaggregation-transfer-backend ${backend}`);
  }
  const sizes = [
    ["tpSize", "tensor-parallel-size|tp-size|tp"],
    ["dpSize", "data-parallel-size|dp-size|dp"],
    ["ppSize", "pipeline-parallel-size|pp-size"],
    ["nnodes", "nnodes"],
  ] as const;
  for (const [key, names] of sizes) {
    const n = count(command, names);
    if (n !== undefined) out[key] = n;
  }
  if (hasSwitch(command, "disable-overlap-schedule")) {
    out.overlap = false;
    out.stated.push("--disable-overlap-schedule");
  }
  if (hasSwitch(command, "enable-hierarchical-cache")) {
    out.hicache = true;
    out.stated.push("--enable-hierarchical-cache");
  }
  return out;
}
