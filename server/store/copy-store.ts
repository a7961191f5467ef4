import "server-only";
import type { AsyncStore } from "./async-store";
import type { SqliteStore } from "./sqlite-store";
import type { StoreItem } from "./store";

export type CopyCounts = Record<StoreItem["kind"], number>;

/**
 * Copies everything a SQLite store holds into another store (PostgreSQL: `npm run store:copy`).
 * Idempotent: every write is an upsert or skipped when present, so a copy cut short can be run again.
 * Search documents go in batches of 500.
 */
export async function copyStore(from: SqliteStore, to: AsyncStore): Promise<CopyCounts> {
  const counts: CopyCounts = {
    backend: 0,
    meta: 0,
    share: 0,
    redaction: 0,
    fork: 0,
    transcript: 0,
    searchSession: 0,
    searchDocument: 0,
  };
  const have = {
    shares: new Set((await to.listShares()).map((s) => s.id)),
    patterns: new Set((await to.listRedactionPatterns()).map((p) => p.id)),
  };
  let batch: Extract<StoreItem, { kind: "searchDocument" }>["value"][] = [];
  const flush = async () => {
    if (batch.length) await to.putSearchDocuments(batch);
    batch = [];
  };
  for (const item of from.exportAll()) {
    switch (item.kind) {
      case "backend":
        await to.putBackend(item.value);
        break;
      case "meta":
        await to.setMeta(item.key, item.value);
        break;
      case "share":
        if (!have.shares.has(item.value.id)) await to.insertShare(item.value, item.frozen);
        break;
      case "redaction":
        if (!have.patterns.has(item.value.id)) await to.insertRedactionPattern(item.value);
        break;
      case "fork":
        await to.putFork(item.value);
        break;
      case "transcript":
        await to.putTranscript(item.value);
        break;
      case "searchSession":
        await to.putSearchSession(item.backendId, item.sessionId, item.title, item.updatedAt);
        break;
      case "searchDocument":
        batch.push(item.value);
        if (batch.length >= 500) await flush();
        break;
    }
    counts[item.kind]++;
  }
  await flush();
  return counts;
}
