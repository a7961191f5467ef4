import "server-only";
// How route handlers and pages reach the started console: the app, a session's channel, a page's snapshot.
import type { Snapshot } from "@/lib/model";
import { getApp, type ConsoleApp } from "./app";
import type { SessionChannel } from "./hub/session-channel";

export type SessionParams = { backendId: string; sessionId: string };
export type BackendParams = { backendId: string };

/** The console, started. Route handlers call this first. */
export async function app(): Promise<ConsoleApp> {
  const a = getApp();
  await a.ready;
  return a;
}

/** A session's hub channel, loaded from its backend on first use (404 for an unknown backend). */
export async function sessionChannel(backendId: string, sessionId: string): Promise<SessionChannel> {
  const { hub, backends } = await app();
  backends.require(backendId);
  return hub.open(backendId, sessionId);
}

/**
 * The session's snapshot for the session page's server render, when the console has it within
 * `capMs` (a channel already open answers from memory; a cold one loads from its backend). Null
 * when it takes longer or fails: the page then renders without it and the browser asks the snapshot
 * route, which reports what went wrong. The load goes on either way, so that request finds it warm.
 */
export async function snapshotForPage(backendId: string, sessionId: string, capMs: number): Promise<Snapshot | null> {
  // Replica mode: a session another replica runs is not in this one's hub; the browser asks for it.
  if (!(await app()).backends.runsHere(backendId)) return null;
  const load = sessionChannel(backendId, sessionId);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), capMs);
  });
  try {
    const channel = await Promise.race([load, late]);
    return channel ? channel.snapshot() : null;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
    load.catch(() => {});
  }
}
