import "server-only";
import type { StdioAdapterOptions } from "../shared/kind";

/**
 * A stdio backend's options (`command`: `[opal-server, ...args]`; `cwd`: the server's working
 * directory and the default directory of new sessions), and Opal's own.
 */
export interface OpalAdapterOptions extends Omit<StdioAdapterOptions, "source"> {
  source?: StdioAdapterOptions["source"];
  restart?: { initialMs?: number; maxMs?: number };
  readyTimeoutMs?: number;
  /** How long Opal may ignore `agent/abort` before the turn is ended here (default 5 s). */
  abortGraceMs?: number;
  /**
   * Health check: `opal/ping` every `intervalMs` (default 15 s); no answer within `timeoutMs`
   * (default 10 s) and the server is killed and restarted.
   */
  health?: { intervalMs?: number; timeoutMs?: number };
}
