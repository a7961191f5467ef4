/**
 * Reducer cost per delta at 100 and at 5,000 messages (lib/timeline/reducer.ts): deltas published
 * into a hub channel as the hub does (server/hub/session-channel.ts: the state is materialized in
 * batches), and frames of coalesced deltas through `applyAll` as the browser does
 * (lib/client/session-store.ts). The ratio between the two sizes should be near 1.
 */
import type { Message, Session, TimelineEvent } from "../lib/model";
import { coalesceDeltas } from "../lib/timeline/coalesce";
import { applyAll, type SessionState } from "../lib/timeline/reducer";
import { SessionChannel } from "../server/hub/session-channel";

const session: Session = { id: "s", backendId: "b", title: "bench", createdAt: 0, updatedAt: 0, status: "busy" };

function longSession(n: number): SessionState {
  const messages: Message[] = [];
  for (let i = 0; i < n; i++) {
    messages.push({
      id: `m${i}`,
      sessionId: "s",
      role: i % 2 ? "assistant" : "user",
      createdAt: i,
      blocks: Array.from({ length: 4 }, (_, j) => ({
        id: `p${i}-${j}`,
        kind: "text" as const,
        text: "lorem ipsum ".repeat(20),
      })),
    });
  }
  return { session, messages, interrupts: [], todos: [] };
}

export interface ReducerFigures {
  /** ms per delta published one at a time into a hub channel, its state read at the end (the hub's path). */
  single: number;
  /** ms per delta in frames of 3 deltas, coalesced and applied with `applyAll` (the browser's path at ~180 deltas/s). */
  frame: number;
}

/** Median of 5 runs of K deltas into the newest message of an n-message session. */
function reducerAt(n: number): ReducerFigures {
  const last = n - 1;
  const d: TimelineEvent = {
    type: "block.delta",
    messageId: `m${last}`,
    blockId: `p${last}-3`,
    field: "text",
    delta: "x",
  };
  const K = 20_000;
  const runs = { single: [] as number[], frame: [] as number[] };
  for (let r = 0; r < 5; r++) {
    const channel = new SessionChannel("b", "s", longSession(n), { seqBase: 0 });
    let t0 = performance.now();
    for (let i = 0; i < K; i++) channel.publish(d);
    if (channel.state.messages.length !== n) throw new Error("reducer bench: the channel lost a message");
    runs.single.push((performance.now() - t0) / K);
    let state = longSession(n);
    const frame = [d, d, d];
    t0 = performance.now();
    for (let i = 0; i < K; i += 3) state = applyAll(state, coalesceDeltas(frame));
    runs.frame.push((performance.now() - t0) / K);
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return { single: median(runs.single), frame: median(runs.frame) };
}

export function reducerBench(): { at100: ReducerFigures; at5000: ReducerFigures } {
  reducerAt(100); // warm-up
  return { at100: reducerAt(100), at5000: reducerAt(5000) };
}
