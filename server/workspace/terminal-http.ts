import "server-only";
import { encodeFrame, sseResponse } from "../hub/sse";
import type { TerminalManager } from "./terminals";

type Terminal = ReturnType<TerminalManager["get"]>;

/**
 * A terminal's output as Server-Sent Events: `data: {"data": "<text>"}` with the chunk's number as
 * its id, resumable from `after` (`Last-Event-ID` or `?after=`) while the bounded buffer holds it; the
 * last frame is `{"exit": code}` once the process has exited. Shared by the session terminals' and
 * the login terminals' stream routes.
 */
export function terminalStream(req: Request, t: Terminal, after: number): Response {
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
}
