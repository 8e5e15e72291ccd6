// A launcher's prefix on each line of a worker's output; the prefix says which worker wrote the line, and the line
// after it is read as it would be without it.
//   - torchrun: with `--tee` or a log directory, torch's elastic launcher prefixes every line a worker writes with
//     its log_line_prefix_template, by default `[${role_name}${local_rank}]:` (`[default0]:`;
//     torch/distributed/elastic/multiprocessing/__init__.py), or the template TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE
//     names, most often `[rank${rank}]:` or `[rank${rank}]: ` (`[rank3]: Traceback …`). c10's own
//     `[rank3]:[E820 10:30:02.408 …] …` is torch's line and keeps its rank (../../sglang/torchLines.ts).
//   - Open MPI's `mpirun --tag-output`: `[jobid,rank]<stdout>:` (or `<stderr>:`, `<stddiag>:`; ORTE's
//     orte/mca/iof/base/iof_base_output.c, Open MPI up to 4.x), `[jobid,rank]<stdout>: ` and, with the detailed tag,
//     `[jobid,rank][host:pid]<stdout>: ` (PMIx's src/mca/pfexec and iof base, Open MPI 5).
//   - MPICH's Hydra `mpiexec -prepend-rank` (`-l`; Intel MPI's is Hydra too): `[rank] ` (src/pm/hydra/ui/mpich/utils.c
//     prepend_rank_fn, pattern `[%r] `). Not before a number and a space: zsh's job table prints `[1] 12345 killed …`
//     (../crash.ts ZSH_DEATH), which stays whole.

const LAUNCHER_PREFIX = /^\[(?:rank\d+|[a-z_][a-z_]*\d+)\]: ?/;
const MPI_TAG = /^\[[^\],\s]+,\d+\](?:\[[^\]\s]+:\d+\])?<(?:stdout|stderr|stddiag)>: ?/;
const HYDRA_RANK = /^\[\d{1,6}\] (?![\s\d]|\d+ )/;

/** Where the line's own text starts after a launcher's prefix; 0 when the line carries none. */
export function launcherPrefixEnd(line: string): number {
  if (line.charCodeAt(0) !== 91 /* [ */) return 0;
  const c1 = line.charCodeAt(1);
  if ((c1 >= 97 && c1 <= 122) || c1 === 95) return torchrunPrefixEnd(line);
  if (c1 < 48 || c1 > 57) return 0;
  const m = MPI_TAG.exec(line) ?? HYDRA_RANK.exec(line);
  return m === null ? 0 : m[0].length;
}

function torchrunPrefixEnd(line: string): number {
  const m = LAUNCHER_PREFIX.exec(line);
  if (m === null) return 0;
  const end = m[0].length;
  // `[rank3]:[E…`: c10's line, read whole by torch's reader.
  return line.charCodeAt(end) === 91 /* [ */ && line.charCodeAt(end - 1) === 58 /* : */ ? 0 : end;
}
