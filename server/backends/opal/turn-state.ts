import type { MessageInfo, ToolBlock, Usage } from "@/lib/model";

/** What the mapping of one run (./normalize.ts) keeps across its events. */
export interface OpalTurn {
  sessionId: string;
  info: MessageInfo;
  seq: number;
  text?: { id: string; text: string };
  thinking?: { id: string; text: string; startedAt: number };
  tools: Map<string, ToolBlock>;
  usage?: Usage;
  /** Child sessions started by this turn's `sub_agent` calls: `sub_session_id` → parent call. */
  children: Map<string, string>;
}
