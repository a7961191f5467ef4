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

/** The login page, coming back to where the browser is now. */
export function loginUrl(): string {
  const here = window.location.pathname + window.location.search;
  return `/login?next=${encodeURIComponent(here)}`;
}

/** A 401 means the login is gone (expired, logged out elsewhere, new token): go to the login page. */
export function onUnauthorized(): void {
  if (typeof window !== "undefined" && window.location.pathname !== "/login") window.location.assign(loginUrl());
}

async function parse<T>(res: Response): Promise<T> {
  if (res.status === 401) onUnauthorized();
  const text = await res.text();
  let body: unknown;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
  }
  if (!res.ok) {
    const err = (body as ErrorBody | undefined)?.error;
    throw new ApiClientError(
      res.status,
      err?.code ?? "internal",
      err?.message ?? `Request failed (${res.status})`,
      err?.details,
    );
  }
  return body as T;
}

export async function apiGet<T>(path: string, init?: RequestInit): Promise<T> {
  return parse<T>(await fetch(path, { ...init, headers: { accept: "application/json", ...init?.headers } }));
}

export async function apiSend<T>(
  method: "POST" | "PUT" | "PATCH" | "DELETE",
  path: string,
  body?: unknown,
): Promise<T> {
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
