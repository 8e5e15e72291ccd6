// Rotated logs (DESIGN.md "Who and when": rotated files are one stream).
// logrotate renames `x.log` to `x.log.1` (`x.log.2.gz` once compressed) or,
// with `dateext`, to `x.log-20261204`; Python's RotatingFileHandler writes
// `x.log.1`, its TimedRotatingFileHandler `x.log.2026-12-04`; kubelet
// rotates a container's `0.log` to `0.log.20261204-140000`; some tools put
// the number before the extension (`x.1.log`). Each such file is a part of
// the stream of the live file it was cut from, older the higher its number
// or the earlier its date. A container's log before its restart, saved with
// `kubectl logs --previous` beside the current one under a mark of its own
// (`x-previous.log`, `x.prev.log`, `previous_x.log`), is that stream's
// oldest part: the same process's writing, before it died and restarted.

/** Extensions a rotated log keeps before its rotation suffix. */
const EXT = "log|txt|out|err|stderr|stdout|jsonl";
const NUMBERED = new RegExp(`^(.+\\.(?:${EXT}))\\.(\\d{1,4})$`, "i");
const NUMBER_BEFORE_EXT = new RegExp(`^(.+)\\.(\\d{1,4})\\.(${EXT})$`, "i");
const DATED = new RegExp(`^(.+\\.(?:${EXT}))[-.](\\d{4}-?\\d\\d-?\\d\\d(?:[-_T]?\\d\\d(?:[-:]?\\d\\d(?:[-:]?\\d\\d)?)?)?)$`, "i");
/** `kubectl logs --previous > sglang-decode-0-previous.log`: a file name's stem marked as the container's run before its restart. */
export const PREVIOUS_RUN = /[-_.](?:previous|prev)$|^(?:previous|prev)[-_.]/i;
const WITH_EXT = new RegExp(`^(.+)\\.(${EXT})$`, "i");
/** Where a previous run stands: before every numbered or dated part of the stream. */
const PREVIOUS_ORDER = -1e15;

export interface RotationPart {
  /** The live file's name: the stream the part belongs to. */
  live: string;
  /**
   * Where the part stands in its stream, oldest first: the live file is
   * newest (+Infinity), a numbered part is older the higher its number, a
   * dated part is as old as its date.
   */
  order: number;
}

/** A file name's rotation: the live file it was cut from and its age, or the name itself when it is no rotated part. */
export function rotationOf(name: string): RotationPart {
  const bare = name.replace(/\.gz$/i, "");
  const numbered = NUMBERED.exec(bare);
  if (numbered) return { live: numbered[1]!, order: -Number(numbered[2]) };
  const before = NUMBER_BEFORE_EXT.exec(bare);
  if (before) return { live: `${before[1]}.${before[3]}`, order: -Number(before[2]) };
  const dated = DATED.exec(bare);
  if (dated) return { live: dated[1]!, order: Number(dated[2]!.replace(/\D/g, "").padEnd(14, "0")) };
  const named = WITH_EXT.exec(bare);
  if (named && PREVIOUS_RUN.test(named[1]!)) return { live: `${named[1]!.replace(PREVIOUS_RUN, "")}.${named[2]}`, order: PREVIOUS_ORDER };
  return { live: bare, order: Number.POSITIVE_INFINITY };
}

/** A path's stream: the path of the live file its folder (or archive) holds, with forward slashes. */
export function streamOf(path: string): string {
  const slash = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"), path.lastIndexOf(":"));
  return path.slice(0, slash + 1).replace(/\\/g, "/") + rotationOf(path.slice(slash + 1)).live;
}

/** Items with the parts of each rotated stream together, oldest first (`x.log.2.gz`, `x.log.1`, `x.log`), where its first part stood. */
export function inStreamOrder<T>(items: readonly T[], pathOf: (item: T) => string): T[] {
  const streams = new Map<string, T[]>();
  for (const item of items) {
    const key = streamOf(pathOf(item));
    (streams.get(key) ?? streams.set(key, []).get(key)!).push(item);
  }
  const age = (item: T) => {
    const path = pathOf(item);
    return rotationOf(path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"), path.lastIndexOf(":")) + 1)).order;
  };
  return [...streams.values()].flatMap((parts) => parts.sort((a, b) => age(a) - age(b)));
}
