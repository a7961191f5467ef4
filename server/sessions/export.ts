import "server-only";
import type { ExportFormat, SessionExport } from "@/lib/api";
import { exportFileName, sessionMarkdown } from "@/lib/export";
import type { ConsoleApp } from "../app";
import { knownSecrets } from "../redaction/redact";
import { Redactor } from "../redaction/redactor";
import { withOlderMessages } from "./history";

const PAGE = 200;
const MAX_PAGES = 50;

/** The whole session from its backend: the newest page, then older pages until the start. */
export async function loadWholeSession(
  app: Pick<ConsoleApp, "backends" | "lineage" | "attribution">,
  backendId: string,
  sessionId: string,
): Promise<SessionExport> {
  const adapter = app.backends.require(backendId);
  const loaded = await adapter.loadSession(sessionId);
  const { messages } = await withOlderMessages(adapter, sessionId, loaded.messages, loaded.olderCursor, {
    upTo: Number.POSITIVE_INFINITY,
    pageSize: PAGE,
    maxPages: MAX_PAGES,
  });
  // Who sent each prompt and answered each interrupt, as the timeline shows it (the console's record).
  return {
    session: app.attribution.session(backendId, app.lineage.decorate(backendId, loaded.session)),
    messages: messages.map((m) => app.attribution.message(backendId, sessionId, m)),
    todos: loaded.todos,
    exportedAt: Date.now(),
  };
}

/**
 * An export without the secrets the console holds (its token, backend passwords and keys, in
 * their plain, base64 and URL-encoded forms; server/redaction/redact.ts). Exports are the user's own full
 * record, so patterns are left to shares: only exact values are removed.
 */
export function withoutConsoleSecrets(data: SessionExport, secrets: readonly string[] = knownSecrets()): SessionExport {
  if (!secrets.length) return data;
  return new Redactor([], secrets, { builtin: false }).value(data) as SessionExport;
}

/** The export as a download response (`Content-Disposition: attachment`). */
export async function exportResponse(
  app: Pick<ConsoleApp, "backends" | "lineage" | "attribution">,
  backendId: string,
  sessionId: string,
  format: ExportFormat,
): Promise<Response> {
  const data = withoutConsoleSecrets(await loadWholeSession(app, backendId, sessionId));
  const name = exportFileName(data.session, format);
  const body =
    format === "json"
      ? JSON.stringify(data, null, 2)
      : sessionMarkdown(data.session, data.messages, data.todos, data.exportedAt);
  return new Response(body, {
    headers: {
      "content-type": format === "json" ? "application/json; charset=utf-8" : "text/markdown; charset=utf-8",
      "content-disposition": `attachment; filename="${name}"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
}
