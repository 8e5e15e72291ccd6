// What a command line that starts an SGLang server says of the server it starts, as a shell quotes it back when the
// job dies (bash's and zsh's job lines, a script's `line N: pid Killed  python3 -m sglang.launch_server …`).
//
// The role is SGLang's `--disaggregation-mode` (python/sglang/srt/server_args.py add_cli_args, choices `null`,
// `prefill`, `decode`), which argparse takes as `--disaggregation-mode decode` or `--disaggregation-mode=decode`.

import type { Role } from "../../../domain/vocabulary.js";

const DISAGGREGATION_MODE = /(?:^|\s)--disaggregation-mode(?:=|\s+)["']?(prefill|decode)["']?(?=\s|$)/;

/** The role a launch command gives its server; undefined when it states none (a plain server, another program). */
export function roleOfLaunchCommand(command: string): Role | undefined {
  return DISAGGREGATION_MODE.exec(command)?.[1] as Role | undefined;
}
