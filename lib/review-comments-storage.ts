/**
 * How review comments are kept per backend + session in the browser's `localStorage`: a versioned
 * entry, checked with zod when read (a damaged or foreign entry reads as no comments). Apart from
 * lib/review-comments.ts so that the timeline's diffs do not carry zod into the session page's
 * first JavaScript; only the review panel's hook loads this.
 */
import { z } from "zod";
import { MAX_COMMENT_CHARS, type ReviewComment, sortComments } from "./review-comments";

const commentSchema = z.object({
  id: z.string().min(1).max(100),
  path: z.string().min(1).max(4096),
  turnId: z.string().max(200).optional(),
  side: z.enum(["old", "new"]),
  start: z.number().int().positive().optional(),
  end: z.number().int().positive().optional(),
  code: z.string().max(200_000),
  diff: z.boolean(),
  text: z.string().max(MAX_COMMENT_CHARS),
  createdAt: z.number(),
});
const storedSchema = z.object({ v: z.literal(1), comments: z.array(commentSchema).max(500) });

/**
 * Where one person's comments on one session are kept. People signed in with OpenID Connect each
 * have their own (a browser shared by two people keeps them apart); the console token's are under
 * the key they always had.
 */
export const storageKey = (backendId: string, sessionId: string, personId?: string) =>
  personId && personId !== "token"
    ? `sb-review-comments:${encodeURIComponent(personId)}:${backendId}/${sessionId}`
    : `sb-review-comments:${backendId}/${sessionId}`;

/** Parses what was stored (anything else, or a damaged entry, reads as no comments). */
export function parseStored(raw: string | null): ReviewComment[] {
  if (!raw) return [];
  try {
    const r = storedSchema.safeParse(JSON.parse(raw));
    if (!r.success) return [];
    return sortComments(
      r.data.comments.map((c) => {
        const { turnId, start, end, ...rest } = c;
        return {
          ...rest,
          ...(turnId !== undefined ? { turnId } : {}),
          ...(start !== undefined ? { start } : {}),
          ...(end !== undefined ? { end } : {}),
        };
      }),
    );
  } catch {
    return [];
  }
}

export function serialize(list: readonly ReviewComment[]): string {
  return JSON.stringify({ v: 1, comments: list });
}
