// A launcher's prefix on each line of a worker's output; the prefix says which worker wrote the line, and the line
// after it is read as it would be without it. Open MPI's tag names the line's rank (MPI's world rank, read as the
// line's rank where the line names none, as vLLM's worker tag `rank=` is: ./otherDialects.ts readProcessTags).
//   - torchrun: with `--tee` or a log directory, torch's elastic launcher prefixes every line a worker writes with
//     its log_line_prefix_template, by default `[${role_name}${local_rank}]:` (`[default0]:`;
//     torch/distributed/elastic/multiprocessing/__init__.py), or the template TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE
//     names, most often `[rank${rank}]:` or `[rank${rank}]: ` (`[rank3]: Traceback …`). PyTorch itself prints
//     `[rank3]: ` before every line of an uncaught exception's traceback in a process that joined a process group:
//     init_process_group installs `_distributed_excepthook`, whose prefix is `f"[rank{get_rank()}]"`
//     (torch/distributed/distributed_c10d.py). Either way the number is the process's global rank. c10's own
//     `[rank3]:[E820 10:30:02.408 …] …` is torch's line and keeps its rank (../../sglang/torchLines.ts).
//   - Open MPI's `mpirun --tag-output`: `[jobid,rank]<stdout>:` (or `<stderr>:`, `<stddiag>:`; ORTE's
//     orte/mca/iof/base/iof_base_output.c, Open MPI up to 4.x), `[jobid,rank]<stdout>: ` and, with the detailed tag,
//     `[jobid,rank][host:pid]<stdout>: ` (PMIx's src/mca/pfexec and iof base, Open MPI 5).
//   - MPICH's Hydra `mpiexec -prepend-rank` (`-l`; Intel MPI's is Hydra too): `[rank] ` (src/pm/hydra/ui/mpich/utils.c
//     prepend_rank_fn, pattern `[%r] `). Not before a number and a space: zsh's job table prints `[1] 12345 killed …`
//     (../crash.ts ZSH_DEATH), which stays whole.

const LAUNCHER_PREFIX = /^\[(?:rank(\d+)|[a-z_][a-z_]*\d+)\]: ?/;
const MPI_TAG = /^\[[^\],\s]+,(\d+)\](?:\[([^\]\s:]+):\d+\])?<(?:stdout|stderr|stddiag)>: ?/;
const HYDRA_RANK = /^\[\d{1,6}\] (?![\s\d]|\d+ )/;

/** A launcher's prefix: where the line's own text starts after it, and the rank it names. */
export interface LauncherPrefix {
  end: number;
  /** MPI's world rank, read as the line's rank. */
  rank?: number;
  /** torch's global rank (`[rank3]: `), read as the line's rank only where nothing else names one (../logParser.ts). */
  globalRank?: number;
  /** The machine Open MPI 5's detailed tag names (`[1,3][node-2:20419]<stdout>: `): the line's host, as a wrapper's. */
  host?: string;
}

/** The launcher's prefix the line starts with; null when it carries none. */
export function readLauncherPrefix(line: string): LauncherPrefix | null {
  if (line.charCodeAt(0) !== 91 /* [ */) return null;
  const c1 = line.charCodeAt(1);
  if ((c1 >= 97 && c1 <= 122) || c1 === 95) return torchrunPrefix(line);
  if (c1 < 48 || c1 > 57) return null;
  const tag = MPI_TAG.exec(line);
  if (tag !== null) return tag[2] === undefined ? { end: tag[0].length, rank: Number(tag[1]) } : { end: tag[0].length, rank: Number(tag[1]), host: tag[2] };
  // Other programs print a pid the same way (torch_npu's `[170] [2025-12-12 12:10:10:654] torch.distributed: …`): the
  // number is no rank for sure.
  const hydra = HYDRA_RANK.exec(line);
  return hydra === null ? null : { end: hydra[0].length };
}

function torchrunPrefix(line: string): LauncherPrefix | null {
  const m = LAUNCHER_PREFIX.exec(line);
  if (m === null) return null;
  const end = m[0].length;
  // `[rank3]:[E…`: c10's line, read whole by torch's reader.
  if (line.charCodeAt(end) === 91 /* [ */ && line.charCodeAt(end - 1) === 58 /* : */) return null;
  return m[1] === undefined ? { end } : { end, globalRank: Number(m[1]) };
}
