/** Types of scripts/dedupe-server-chunks.mjs. */
export function dedupeServerChunks(distDir: string): { copies: number; bytes: number; rewritten: number };
