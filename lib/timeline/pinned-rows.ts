/**
 * The rows a virtualized list keeps rendered whatever the scroll position: `indexes` (the range on
 * screen plus overscan, ascending) with the pinned ones merged in, ascending and without repeats.
 * Pinned indexes outside `0..count-1` are dropped. The timeline pins its newest message (a reply
 * arriving while the reader is scrolled up is in the DOM for find-in-page and screen readers), the
 * row holding focus (so it does not unmount under the keyboard) and rows holding an interrupt card.
 */
export function withPinned(indexes: readonly number[], pinned: Iterable<number>, count: number): number[] {
  const extra: number[] = [];
  const have = new Set(indexes);
  for (const i of pinned) {
    if (Number.isInteger(i) && i >= 0 && i < count && !have.has(i)) {
      have.add(i);
      extra.push(i);
    }
  }
  if (extra.length === 0) return [...indexes];
  return [...indexes, ...extra].sort((a, b) => a - b);
}
