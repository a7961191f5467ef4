import type { Message } from "./model";

/**
 * Attribution as the timeline shows it (docs/people.md, "Attribution"). Kept apart from
 * lib/people.ts, whose schemas bring zod: the session page's first load does not need it.
 */

/** How an answer reads in the timeline: "allowed once", "rejected", … (docs/people.md, "Attribution"). */
export function decisionLabel(decision: string): string {
  switch (decision) {
    case "allow_once":
      return "allowed once";
    case "allow_always":
      return "allowed always";
    case "reject":
      return "rejected";
    case "dismiss":
      return "dismissed";
    case "accept":
      return "accepted";
    case "decline":
      return "declined";
    case "cancel":
      return "cancelled";
    default:
      return "answered";
  }
}

/** How many different people sent the user messages of a list, and the first one's id. */
export function distinctAuthors(messages: readonly Message[]): { count: number; first?: string } {
  const ids = new Set<string>();
  for (const m of messages) if (m.author) ids.add(m.author.id);
  const first = ids.values().next().value;
  return first === undefined ? { count: 0 } : { count: ids.size, first };
}
