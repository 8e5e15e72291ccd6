// torchrun's prefix on each line of a worker's output. With `--tee` or a log directory, torch's elastic launcher
// prefixes every line a worker writes with its log_line_prefix_template, by default `[${role_name}${local_rank}]:`
// (`[default0]:`; torch/distributed/elastic/multiprocessing/__init__.py), or the template
// TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE names, most often `[rank${rank}]:` or `[rank${rank}]: ` (`[rank3]: Traceback …`).
// The prefix says which worker wrote the line; the line after it is read as it would be without it. c10's own
// `[rank3]:[E820 10:30:02.408 …] …` is torch's line and keeps its rank (../../sglang/torchLines.ts).

const LAUNCHER_PREFIX = /^\[(?:rank\d+|[a-z_][a-z_]*\d+)\]: ?/;

/** Where the line's own text starts after torchrun's prefix; 0 when the line carries none. */
export function launcherPrefixEnd(line: string): number {
  const c1 = line.charCodeAt(1);
  if (line.charCodeAt(0) !== 91 /* [ */ || !((c1 >= 97 && c1 <= 122) || c1 === 95)) return 0;
  const m = LAUNCHER_PREFIX.exec(line);
  if (m === null) return 0;
  const end = m[0].length;
  // `[rank3]:[E…`: c10's line, read whole by torch's reader.
  return line.charCodeAt(end) === 91 /* [ */ && line.charCodeAt(end - 1) === 58 /* : */ ? 0 : end;
}
