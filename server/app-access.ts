import "server-only";
// How route handlers and pages reach the started console: the app, a session's channel, a page's snapshot.
import type { Snapshot } from "@/lib/model";
import { getApp, type ConsoleApp } from "./app";
import { type EventsOpener, peerRequests } from "./http";
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
 * What a subscriber to a session's events attaches to, after `after`: in replica mode the owner's
 * stream when another replica runs the backend, else this console's channel (404 for an unknown
 * backend). Served before Next's request pipeline (server/direct-streams.ts).
 */
export async function sessionEvents(
  backendId: string,
  sessionId: string,
  after: number | undefined,
): Promise<EventsOpener> {
  await app(); // the composition root gives the peers
  const followed = await peerRequests().events(backendId, sessionId, after);
  if (followed) return followed;
  const channel = await sessionChannel(backendId, sessionId);
  return (sink) => channel.subscribe(sink, after);
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
