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
  return `${room}|${landingKeyInRoom(targetTp, chunk)}`;
}

/** landingKey without its room: for a pairing that holds one room's records at a time. */
export function landingKeyInRoom(targetTp: number | null, chunk: number | null): string {
  return `${targetTp}|${chunk ?? ANY_CHUNK}`;
}

/** The chunk of a landingKey that matches every chunk. */
export const ANY_CHUNK = "*";

/** Chunk columns hold NaN for a null chunk: a notification names the chunk its write carried, and null matches null. */
export function sameChunk(a: number, b: number): boolean {
  return a === b || (a !== a && b !== b);
}

/** The model's landings as columns, in landing order: post seq, the seq that landed it, 1 where a kv.done did. */
export interface LandingColumns {
  post: Uint32Array;
  landing: Uint32Array;
  byDone: Uint8Array;
}

/** The landings as one object each (tests and small incidents; the columns are what is kept). */
export function landingList(columns: LandingColumns): TransferLanding[] {
  return Array.from(columns.post, (post, i) => ({ post, landing: columns.landing[i]!, by: columns.byDone[i] ? "done" : "notify" }));
}

/**
 * The landings in the order the model made them, one per (post, landing)
 * pair. Typed columns grown by doubling: an incident lands about one post in
 * four of its events, and an object per landing (with the array holding it)
 * is several times the 9 bytes a landing takes here.
 */
export class LandingLog {
  private posts = new Uint32Array(1024);
  private landingSeqs = new Uint32Array(1024);
  private byDone = new Uint8Array(1024);
  private n = 0;

  /** A post's writes to several buffers land together: a repeat of the last pair is recorded once. */
  add(post: number, landing: number, by: LandedBy): void {
    const n = this.n;
    if (n > 0 && this.posts[n - 1] === post && this.landingSeqs[n - 1] === landing) return;
    if (n === this.posts.length) this.grow();
    this.posts[n] = post;
    this.landingSeqs[n] = landing;
    this.byDone[n] = by === "done" ? 1 : 0;
    this.n = n + 1;
  }

  /** The landings so far, copied out at their length. */
  columns(): LandingColumns {
    return { post: this.posts.slice(0, this.n), landing: this.landingSeqs.slice(0, this.n), byDone: this.byDone.slice(0, this.n) };
  }

  private grow(): void {
    const size = this.posts.length * 2;
    const posts = new Uint32Array(size);
    posts.set(this.posts);
    const landings = new Uint32Array(size);
    landings.set(this.landingSeqs);
    const done = new Uint8Array(size);
    done.set(this.byDone);
    this.posts = posts;
    this.landingSeqs = landings;
    this.byDone = done;
  }
}
