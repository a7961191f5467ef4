/**
 * A ConsoleApp for tests that call route handlers in process: the parts a test cares about, the
 * rest built the way server/app.ts builds them for one console. One place, so a new part of the
 * console is added here once rather than in every such test.
 */
import type { ConsoleApp } from "@/server/app";
import { CompareService } from "@/server/compare/service";
import { localSessionSource } from "@/server/hub/session-source";
import { PushService } from "@/server/push/service";
import { SearchIndexer } from "@/server/search/indexer";
import { Attribution } from "@/server/sessions/attribution";
import { shareStreamQuota } from "@/server/shares/stream-quota";
import { TerminalManager } from "@/server/workspace/terminals";

type Required = Pick<ConsoleApp, "config" | "store" | "hub" | "backends" | "lineage">;

export function testConsoleApp(parts: Required & Partial<ConsoleApp>): ConsoleApp {
  const { store, hub, backends, config } = parts;
  const attribution = parts.attribution ?? new Attribution(store);
  return {
    attribution,
    search: new SearchIndexer({ store, backends: () => [] }),
    push: new PushService(store, hub),
    sessions: localSessionSource(hub),
    sharing: { streams: shareStreamQuota() },
    terminals: new TerminalManager(),
    compare: new CompareService({ store, hub, backends, config, attribution }),
    ready: Promise.resolve(),
    stop: async () => {},
    ...parts,
  };
}
