import "server-only";
import { getApp, type ConsoleApp } from "./app";

export type SessionParams = { backendId: string; sessionId: string };
export type BackendParams = { backendId: string };

/** The console, started. Route handlers call this first. */
export async function app(): Promise<ConsoleApp> {
  const a = getApp();
  await a.ready;
  return a;
}
