// What a test file may keep for the later files of its shard process
// (test/shard.ts) instead of building it again, such as a browser: closed
// when the shard has run its last file. A file run on its own (node --test
// FILE) is in no shard and closes what it opened itself.

type Close = () => Promise<void>;

let closers: Close[] | undefined;

/** Called by the shard before its first file: from then on resources may outlive a file. */
export function beginShard(): void {
  closers = [];
}

/** Closes what the shard's files left open, last opened first. */
export async function endShard(): Promise<void> {
  for (const close of (closers ?? []).splice(0).reverse()) await close();
}

export function inShard(): boolean {
  return closers !== undefined;
}

/** Keeps `close` for the end of the shard; only in a shard. */
export function onShardEnd(close: Close): void {
  if (!closers) throw new Error("onShardEnd outside a shard");
  closers.push(close);
}
