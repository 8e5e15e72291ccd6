// The global order (DESIGN.md "Canonical store"): a k-way merge of the
// sources by aligned time, ties broken by source id then line. A merge only
// ever takes the head of a source, so each source's own order (and with it
// each host's) is never changed, even where its clock steps backwards.

export interface MergeKey {
  tsUs: number;
  sourceId: number;
  line: number;
}

export function keyBefore(a: MergeKey, b: MergeKey): boolean {
  if (a.tsUs !== b.tsUs) return a.tsUs < b.tsUs;
  if (a.sourceId !== b.sourceId) return a.sourceId < b.sourceId;
  return a.line < b.line;
}

/** A binary min-heap of merge inputs, ordered by their current head keys. */
export class MergeHeap<T> {
  private readonly items: T[] = [];

  constructor(private readonly head: (item: T) => MergeKey) {}

  get size(): number {
    return this.items.length;
  }

  push(item: T): void {
    this.items.push(item);
    this.up(this.items.length - 1);
  }

  peek(): T | undefined {
    return this.items[0];
  }

  /** The input whose head comes second, or undefined when there is one input. */
  runnerUp(): T | undefined {
    const [, a, b] = this.items;
    if (a === undefined) return undefined;
    if (b === undefined) return a;
    return keyBefore(this.head(b), this.head(a)) ? b : a;
  }

  /** Re-sorts the top after its head advanced. */
  topChanged(): void {
    this.down(0);
  }

  pop(): T | undefined {
    const top = this.items[0];
    const last = this.items.pop();
    if (this.items.length > 0 && last !== undefined) {
      this.items[0] = last;
      this.down(0);
    }
    return top;
  }

  private less(i: number, j: number): boolean {
    return keyBefore(this.head(this.items[i]!), this.head(this.items[j]!));
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const n = this.items.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.less(l, m)) m = l;
      if (r < n && this.less(r, m)) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }

  private swap(i: number, j: number): void {
    const t = this.items[i]!;
    this.items[i] = this.items[j]!;
    this.items[j] = t;
  }
}
