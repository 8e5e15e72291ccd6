// Distinct strings in first-seen order, each with its index: the block
// dictionaries, the attrs tables and the snapshot's string column.

export class Interner {
  list: string[] = [];
  private ids = new Map<string, number>();

  id(s: string): number {
    let i = this.ids.get(s);
    if (i === undefined) {
      this.ids.set(s, (i = this.list.length));
      this.list.push(s);
    }
    return i;
  }

  /** Starts afresh; a `list` handed out before stays as it was. */
  reset(): void {
    this.list = [];
    this.ids = new Map();
  }
}
