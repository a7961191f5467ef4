/** The page's own title; the attention manager prefixes it with the pending-interrupt count. */
let base = "Switchboard";
const listeners = new Set<() => void>();

export function setBaseTitle(title: string) {
  base = title;
  for (const l of listeners) l();
}
export function getBaseTitle() {
  return base;
}
export function subscribeBaseTitle(fn: () => void) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}
