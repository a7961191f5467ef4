/** Typed fetch helpers for the console's own API (browser side). */
import type { ErrorBody } from "../api";

export class ApiClientError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "ApiClientError";
  }
}

async function parse<T>(res: Response): Promise<T> {
  const text = await res.text();
  let body: unknown = undefined;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
  }
  if (!res.ok) {
    const err = (body as ErrorBody | undefined)?.error;
    throw new ApiClientError(res.status, err?.code ?? "internal", err?.message ?? `Request failed (${res.status})`, err?.details);
  }
  return body as T;
}

export async function apiGet<T>(path: string, init?: RequestInit): Promise<T> {
  return parse<T>(await fetch(path, { ...init, headers: { accept: "application/json", ...init?.headers } }));
}

export async function apiSend<T>(method: "POST" | "PATCH" | "DELETE", path: string, body?: unknown): Promise<T> {
  return parse<T>(
    await fetch(path, {
      method,
      headers: { "content-type": "application/json", accept: "application/json" },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }),
  );
}

export const sessionPath = (backendId: string, sessionId: string) =>
  `/api/backends/${encodeURIComponent(backendId)}/sessions/${encodeURIComponent(sessionId)}`;
