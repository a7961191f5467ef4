/**
 * A file picked elsewhere on the session page (the file browser) goes into the composer as an `@`
 * mention: one window event, so the two panels need not know each other.
 */
const EVENT = "sb:mention-file";

export function requestMention(path: string): void {
  window.dispatchEvent(new CustomEvent<string>(EVENT, { detail: path }));
}

/** Calls `onPath` for every requested mention until the returned function is called. */
export function onMentionRequest(onPath: (path: string) => void): () => void {
  const listener = (e: Event) => {
    const p = (e as CustomEvent<unknown>).detail;
    if (typeof p === "string" && p) onPath(p);
  };
  window.addEventListener(EVENT, listener);
  return () => window.removeEventListener(EVENT, listener);
}
