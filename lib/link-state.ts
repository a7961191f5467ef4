/** How live an open session's view is: its event stream's connection and its backend's status together. */
import type { ConnectionState } from "./client/sse-client";
import type { Backend } from "./model";

export type LinkState = "connecting" | "connected" | "reconnecting" | "down";

export function linkState(connection: ConnectionState, backend: Backend | undefined): LinkState {
  if (backend && backend.status !== "ready") return backend.status === "connecting" ? "reconnecting" : "down";
  return connection === "connected" ? "connected" : connection === "connecting" ? "connecting" : "reconnecting";
}
