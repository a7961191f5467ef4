import "server-only";

function intEnv(name: string, fallback: number): number {
  const n = Number(process.env[name]);
  return Number.isSafeInteger(n) && n > 0 ? n : fallback;
}

/**
 * Unknown share tokens allowed per client address per window before it is answered 429
 * (`SWITCHBOARD_SHARE_FAILURE_LIMIT`, 30; `SWITCHBOARD_SHARE_FAILURE_WINDOW_MS`, a minute).
 */
export function shareFailureLimits(): { failureLimit: number; failureWindowMs: number } {
  return {
    failureLimit: intEnv("SWITCHBOARD_SHARE_FAILURE_LIMIT", 30),
    failureWindowMs: intEnv("SWITCHBOARD_SHARE_FAILURE_WINDOW_MS", 60_000),
  };
}

/** How long a public share stream may carry nothing but heartbeats before it is ended (`SWITCHBOARD_SHARE_STREAM_IDLE_MS`, 30 minutes). */
export function shareStreamIdleMs(): number {
  return intEnv("SWITCHBOARD_SHARE_STREAM_IDLE_MS", 30 * 60_000);
}
