// Which post a decode notification or a sender's completion lands: the one
// pairing rule the model applies (transferPath.ts) and the checks and views
// that pair posts with notifications read (docs/protocol.md §5.2 rank
// mapping, §6 chunk notifications).

/** How the model learned a posted write landed: the decode notification naming it, or the sender's own completion (kv.done). */
export type LandedBy = "notify" | "done";

/** One posted write the model landed: the post's seq, the seq of the event that landed it, and which kind of event that was. */
export interface TransferLanding {
  post: number;
  landing: number;
  by: LandedBy;
}

/**
 * The decode ranks a prefill rank's post writes to: with equal TP, prefill
 * tp r writes to decode tp r alone; a room with no decode rank of that TP
 * is written on every decode rank (§5.2 rank mapping).
 */
export function postTargets<T>(postTp: number | null, decode: Iterable<T>, tpOf: (d: T) => number | null): T[] {
  const all = [...decode];
  const peers = all.filter((d) => tpOf(d) === postTp);
  return peers.length > 0 ? peers : all;
}

/**
 * The key a posted write and the notification that lands it share: the
 * room, the decode rank's TP the write went to (postTargets) and the chunk;
 * a notification that names no chunk (Mooncake's Success, §5.2) lands the
 * writes of every chunk, so it looks them up under `ANY_CHUNK`.
 */
export function landingKey(room: string, targetTp: number | null, chunk: number | null): string {
  return `${room}|${targetTp}|${chunk ?? ANY_CHUNK}`;
}

/** The chunk of a landingKey that matches every chunk. */
export const ANY_CHUNK = "*";

/** Chunk columns hold NaN for a null chunk: a notification names the chunk its write carried, and null matches null. */
export function sameChunk(a: number, b: number): boolean {
  return a === b || (a !== a && b !== b);
}

/** The landings in the order the model made them, one per (post, landing) pair. */
export class LandingLog {
  private readonly posts: number[] = [];
  private readonly landingSeqs: number[] = [];
  private readonly byDone: boolean[] = [];

  /** A post's writes to several buffers land together: a repeat of the last pair is recorded once. */
  add(post: number, landing: number, by: LandedBy): void {
    const n = this.posts.length;
    if (n > 0 && this.posts[n - 1] === post && this.landingSeqs[n - 1] === landing) return;
    this.posts.push(post);
    this.landingSeqs.push(landing);
    this.byDone.push(by === "done");
  }

  list(): TransferLanding[] {
    return this.posts.map((post, i) => ({ post, landing: this.landingSeqs[i]!, by: this.byDone[i] ? "done" : "notify" }));
  }
}
