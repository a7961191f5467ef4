import "server-only";
import { z } from "zod";
import { ApiError } from "../../errors";
import { JsonRpcClosedError, JsonRpcError, JsonRpcTimeoutError } from "../shared/json-rpc";

/**
 * The parts of the Copilot headless protocol's results the adapter reads, checked with zod (the
 * shapes of `@github/copilot-sdk` 1.0.14's generated declarations, verified against CLI 1.0.102;
 * docs/backends/copilot.md). Unknown keys are allowed: the CLI adds fields between versions.
 */

export const PingResult = z.object({ protocolVersion: z.number().optional() }).loose();
export const StatusResult = z
  .object({ version: z.string().optional(), protocolVersion: z.number().optional() })
  .loose();
export const AuthStatus = z
  .object({ isAuthenticated: z.boolean(), statusMessage: z.string().optional(), login: z.string().optional() })
  .loose();

export const SessionInfo = z
  .object({
    sessionId: z.string(),
    modelState: z.object({ modelId: z.string().optional(), reasoningEffort: z.string().optional() }).loose().optional(),
    mode: z.string().optional(),
    capabilities: z
      .object({ ui: z.object({ elicitation: z.boolean().optional() }).loose().optional() })
      .loose()
      .optional(),
  })
  .loose();
export type SessionInfo = z.infer<typeof SessionInfo>;

export const SessionMetadata = z
  .object({
    sessionId: z.string(),
    startTime: z.string().optional(),
    modifiedTime: z.string().optional(),
    summary: z.string().optional(),
    name: z.string().optional(),
    context: z.object({ cwd: z.string().optional() }).loose().optional(),
  })
  .loose();
export type SessionMetadata = z.infer<typeof SessionMetadata>;

export const SessionList = z.object({ sessions: z.array(z.unknown()) }).loose();
export const MetadataResult = z.object({ session: z.unknown().optional() }).loose();
export const MessagesResult = z.object({ events: z.array(z.unknown()) }).loose();
export type MessagesResult = z.infer<typeof MessagesResult>;
export const SendResult = z.object({ messageId: z.string().optional() }).loose();
export const SuccessResult = z.object({ success: z.boolean(), error: z.string().optional() }).loose();
export type SuccessResult = z.infer<typeof SuccessResult>;
export const PendingPermissions = z
  .object({ items: z.array(z.object({ requestId: z.string(), request: z.unknown() }).loose()) })
  .loose();
export const RewindPoints = z
  .object({
    fileChangeTrackingEnabled: z.boolean().optional(),
    unavailableReason: z.string().optional(),
    points: z.array(
      z
        .object({ eventId: z.string(), userMessage: z.string().optional(), canRestoreFiles: z.boolean().optional() })
        .loose(),
    ),
  })
  .loose();
export const RewindPreview = z
  .object({
    available: z.boolean(),
    reason: z.string().optional(),
    fileCount: z.number().optional(),
    files: z.array(z.object({ path: z.string(), changeType: z.string().optional() }).loose()).optional(),
  })
  .loose();
export const RewindResult = z
  .object({ outcome: z.string(), restoredFiles: z.array(z.string()).optional(), error: z.string().optional() })
  .loose();
export type RewindResult = z.infer<typeof RewindResult>;
export const ModelsResult = z
  .object({ models: z.array(z.object({ id: z.string(), name: z.string().optional() }).loose()).optional() })
  .loose();

/** `session.commands.list` (CLI 1.0.102): the slash commands of a session, built in or a client's. */
export const CommandList = z
  .object({
    commands: z.array(
      z.object({ name: z.string(), aliases: z.array(z.string()).optional(), kind: z.string().optional() }).loose(),
    ),
  })
  .loose();
/** `session.commands.invoke`: what a slash command produced (text, a prompt for the agent, or done). */
export const CommandInvocation = z
  .object({
    kind: z.string(),
    text: z.string().optional(),
    message: z.string().optional(),
    prompt: z.string().optional(),
    displayPrompt: z.string().optional(),
    notice: z.string().optional(),
  })
  .loose();
/** `command.queued` / `command.execute` event data. */
export const CommandRequest = z
  .object({
    requestId: z.string(),
    command: z.string().optional(),
    commandName: z.string().optional(),
    args: z.string().optional(),
  })
  .loose();
/** `session.lifecycle` notifications: another client (or this one) created, changed or deleted a session. */
export const LifecycleNotification = z
  .object({
    type: z.string(),
    sessionId: z.string(),
    metadata: z
      .object({ startTime: z.string().optional(), modifiedTime: z.string().optional(), summary: z.string().optional() })
      .loose()
      .optional(),
  })
  .loose();

/** Parses a result, or throws a 502 naming what the CLI answered unexpectedly. */
export function parseResult<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const r = schema.safeParse(value);
  if (!r.success)
    throw ApiError.upstream(`Copilot answered ${what} with something unexpected`, {
      issues: r.error.issues.slice(0, 5).map((i) => ({ path: i.path.join("."), message: i.message })),
    });
  return r.data;
}

/** A failed JSON-RPC call as the console's error: the CLI's own message (502), a timeout (502), a dead process (503). */
export function mapRpcError(err: unknown, what: string, label: string): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof JsonRpcError)
    return ApiError.upstream(`${label} could not ${what}: ${err.message}`, { code: err.code });
  if (err instanceof JsonRpcTimeoutError) return ApiError.upstream(`${label} did not answer in time (${what})`);
  if (err instanceof JsonRpcClosedError) return ApiError.down(`${label} is not running (${err.message})`);
  return ApiError.upstream(`${label} could not ${what}`);
}
