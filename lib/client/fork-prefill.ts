/**
 * A prompt handed over to a forked session (forking from a user message re-asks it): the fork's page
 * finds it in `sessionStorage` and starts its composer with it.
 */
const prefillKey = (backendId: string, sessionId: string) => `sb-prefill:${backendId}/${sessionId}`;

export function handOverPrompt(backendId: string, sessionId: string, prompt: string): void {
  sessionStorage.setItem(prefillKey(backendId, sessionId), prompt);
}

/** The prompt handed over to this session, once (it is removed as it is read). */
export function takePrefill(backendId: string, sessionId: string): string | undefined {
  const k = prefillKey(backendId, sessionId);
  const v = sessionStorage.getItem(k) ?? undefined;
  if (v !== undefined) sessionStorage.removeItem(k);
  return v;
}
