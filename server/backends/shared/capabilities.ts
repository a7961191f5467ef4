import type { Capabilities } from "@/lib/model";

/**
 * What a backend whose sessions the console can list, read, steer and manage has: compaction, a model
 * choice, history, Stop, rename, delete, title search and per-session directories; no read-only share
 * of its own (the console's shares serve every backend). OpenCode, Opal and zot have all of it; each
 * adapter adds what differs (fork, revert, diff, mentions, interrupts …).
 */
export const MANAGED_SESSIONS = {
  compact: true,
  models: true,
  share: false,
  history: true,
  abort: true,
  rename: true,
  delete: true,
  search: true,
  directories: true,
} as const satisfies Partial<Capabilities>;
