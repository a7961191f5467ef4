import { TerminalStreamQuery } from "@/lib/workspace-api";
import { app, type SessionParams } from "@/server/app-access";
import { encodeFrame, sseResponse } from "@/server/hub/sse";
import { readQuery, resumeCursor, route } from "@/server/http";

export const dynamic = "force-dynamic";

/**
 * The terminal's output as Server-Sent Events: `data: {"data": "<text>"}` with the chunk's number as
 * its id, resumable from `Last-Event-ID` (or `?after=`) while the bounded buffer holds it; the last
 * frame is `{"exit": code}` once the shell has exited.
 */
export const GET = route<SessionParams & { terminalId: string }>(async (req, { backendId, sessionId, terminalId }) => {
  const q = readQuery(req, TerminalStreamQuery);
  const after = resumeCursor(req, q.after) ?? 0;
  const t = (await app()).terminals.get(backendId, sessionId, terminalId);
  return sseResponse({
    signal: req.signal,
    open(sink) {
      let stop: (() => void) | undefined;
      stop = t.follow(after, (e) => {
        if ("chunk" in e) sink.write(encodeFrame(e.chunk.seq, { data: e.chunk.data }));
        else {
          sink.write(encodeFrame(undefined, { exit: e.exit }));
          sink.close();
          stop?.();
        }
      });
      return () => stop?.();
    },
  });
});
