// Which message templates a line's dialect goes through. SGLang's own lines
// take SGLang's templates; glog/absl/c10 lines take torch's watchdog and the
// DeepEP's kernel timeouts and the transfer engines' templates (Mooncake, NIXL, UCX); lines of other loggers
// (ISO-dated, Python logging, plain, Ray's, a journal's) may carry either and take both, then Ray's and the service managers' (systemd's, supervisord's, the kubelet's); the
// kernel's lines take the kernel's first, lines of no dialect take them last; Slurm's (`srun: error: …`) only Slurm's.

import type { ParsedEvent } from "../../../domain/event.js";
import { parseEngineMessage } from "../messages/engineMessage.js";
import type { MatchResult } from "../sglang/match.js";
import { DEEPEP_TEMPLATES, KERNEL_TEMPLATES, RAY_TEMPLATES, SGLANG_TEMPLATES, SLURM_TEMPLATES, SERVICE_MANAGER_TEMPLATES, TORCH_TEMPLATES } from "../templates/index.js";

export type MessageMatcher = (line: string, at: number, ev: ParsedEvent) => MatchResult;

const torchWatchdog: MessageMatcher = (line, at, ev) => TORCH_TEMPLATES.match(line, at, ev);

const deepepTimeouts: MessageMatcher = (line, at, ev) => DEEPEP_TEMPLATES.match(line, at, ev);

const sglangTemplates: MessageMatcher = (line, at, ev) => SGLANG_TEMPLATES.match(line, at, ev);

export const SGLANG_MESSAGES: readonly MessageMatcher[] = [sglangTemplates];
export const ENGINE_MESSAGES: readonly MessageMatcher[] = [torchWatchdog, deepepTimeouts, parseEngineMessage];
const rayTemplates: MessageMatcher = (line, at, ev) => RAY_TEMPLATES.match(line, at, ev);
const serviceManagerTemplates: MessageMatcher = (line, at, ev) => SERVICE_MANAGER_TEMPLATES.match(line, at, ev);
export const ANY_MESSAGES: readonly MessageMatcher[] = [...SGLANG_MESSAGES, ...ENGINE_MESSAGES, rayTemplates, serviceManagerTemplates];
const kernelTemplates: MessageMatcher = (line, at, ev) => KERNEL_TEMPLATES.match(line, at, ev);
export const KERNEL_MESSAGES: readonly MessageMatcher[] = [kernelTemplates, ...ANY_MESSAGES];
/**
 * A bare line of no dialect: any logger's templates, then the kernel's. A kernel line without `dmesg`'s stamp (`dmesg -t`,
 * a console, a paste that cut it) is still the kernel's when its text is one only the kernel prints (an OOM kill, an
 * Xid, a hung task). Not inside a wrapper, which says whose line it is.
 */
export const PLAIN_MESSAGES: readonly MessageMatcher[] = [...ANY_MESSAGES, kernelTemplates];
const slurmTemplates: MessageMatcher = (line, at, ev) => SLURM_TEMPLATES.match(line, at, ev);
export const SLURM_MESSAGES: readonly MessageMatcher[] = [slurmTemplates];

/** The first template set that claims the message: true, false, or the name of a template that half-matched. */
export function matchMessage(matchers: readonly MessageMatcher[], line: string, at: number, ev: ParsedEvent): MatchResult {
  for (const m of matchers) {
    const r = m(line, at, ev);
    if (r !== false) return r;
  }
  return false;
}
