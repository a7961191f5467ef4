/** A fixed-capacity circular log of items with growing integer keys (`seq`). */
export class RingLog<T extends { seq: number }> {
  private buf: (T | undefined)[];
  private head = 0; // index of the oldest item
  private size = 0;
  constructor(readonly capacity: number) {
    this.buf = new Array(capacity);
  }
  push(item: T): void {
    const idx = (this.head + this.size) % this.capacity;
    this.buf[idx] = item;
    if (this.size < this.capacity) this.size++;
    else this.head = (this.head + 1) % this.capacity;
  }
  get length(): number {
    return this.size;
  }
  /** Oldest held seq, or undefined when empty. */
  get firstSeq(): number | undefined {
    return this.size ? this.buf[this.head]!.seq : undefined;
  }
  /** Items with seq > after, oldest first. */
  after(after: number): T[] {
    const out: T[] = [];
    // Binary search over the ring for the first seq > after.
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.buf[(this.head + mid) % this.capacity]!.seq <= after) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.size; i++) out.push(this.buf[(this.head + i) % this.capacity]!);
    return out;
  }
}
