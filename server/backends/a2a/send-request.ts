import "server-only";
import { randomUUID } from "node:crypto";
import { Role, type Part, type SendMessageRequest } from "@a2a-js/sdk";
import type { PromptBody, PromptPart } from "@/lib/api";

/** A prompt's parts as A2A 1.0 parts (data URLs as raw bytes; the SDK writes 0.3 file parts for a 0.3 agent). */
export function toA2aParts(parts: readonly PromptPart[]): Part[] {
  return parts.map((p): Part => {
    if (p.type === "text")
      return { content: { $case: "text", value: p.text }, metadata: undefined, filename: "", mediaType: "" };
    const m = /^data:([^;,]+)?(;base64)?,(.*)$/s.exec(p.url);
    const filename = p.filename ?? "file";
    if (m)
      return {
        content: { $case: "raw", value: m[2] ? Buffer.from(m[3]!, "base64") : Buffer.from(decodeURIComponent(m[3]!)) },
        metadata: undefined,
        filename,
        mediaType: p.mime,
      };
    return { content: { $case: "url", value: p.url }, metadata: undefined, filename, mediaType: p.mime };
  });
}

/**
 * The `SendMessage` request of a prompt: its parts (`a2aParts`, else the prompt's own), the context
 * and the paused task it answers; opencode-a2a also gets the bound session and the model.
 */
export function sendRequest(
  body: PromptBody,
  a2aParts: readonly PromptPart[] | undefined,
  to: { opencode: boolean; sessionId: string; ocSession?: string; contextId?: string; taskId?: string },
): SendMessageRequest {
  const { opencode } = to;
  const metadata = opencode
    ? {
        shared: {
          ...(to.ocSession ? { session: { id: to.ocSession } } : {}),
          ...(body.model?.provider ? { model: { providerID: body.model.provider, modelID: body.model.id } } : {}),
        },
      }
    : undefined;
  return {
    tenant: "",
    message: {
      messageId: randomUUID(),
      role: Role.ROLE_USER,
      parts: toA2aParts(a2aParts ?? body.parts),
      // opencode-a2a binds a new session per context: the console's session id is the context.
      contextId: opencode ? to.sessionId : (to.contextId ?? ""),
      taskId: to.taskId ?? "",
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: {
      acceptedOutputModes: ["text/plain", "text/markdown", "application/json"],
      taskPushNotificationConfig: undefined,
      returnImmediately: false,
    },
    metadata,
  };
}
