import "server-only";
import type { Capabilities } from "@/lib/model";
import type { OpencodeContract } from "./contract";
import { MANAGED_SESSIONS } from "../shared/capabilities";

/** What the console can do with an OpenCode server spoken to through its V1 routes. */
export const CAPABILITIES: Capabilities = {
  fork: true,
  forkMessages: true,
  revert: true,
  diff: true,
  ...MANAGED_SESSIONS,
  agents: true,
  todos: true,
  children: true,
  // File parts (`data:` URLs): images go to the model as images, text files as their text.
  attachments: { images: true, files: true },
  // `@` mentions: OpenCode's own file search (`/find/file`, `/api/fs/find`); a picked file goes as a
  // `file://` part, which OpenCode reads itself and attaches (as its TUI does).
  mentions: { search: "backend", carry: "file" },
  interrupts: { permission: true, question: true, input: false },
};

/**
 * What the `/api` contract can do. It has no fork, no rename, no delete, no children listing, no
 * per-turn patches and no todo read-back: those actions are hidden, never faked.
 */
export const API_CAPABILITIES: Capabilities = {
  ...CAPABILITIES,
  fork: false,
  forkMessages: false,
  rename: false,
  delete: false,
  children: false,
  diff: false,
  // Sessions get no title on create (and no rename): OpenCode titles them itself, so a title
  // search finds nothing the user named.
  search: false,
  // `@` mentions stay `@path` in the prompt's text, which OpenCode's agent reads with its own tools. A
  // `file://` attachment is not read into text on /api: OpenCode 1.18 hands it to the provider as
  // media (by the file's extension), and its OpenAI Chat lowering takes images only ("OpenAI Chat
  // does not support media type text/markdown"), so the turn would fail.
  mentions: { search: "backend", carry: "text" },
};

/** What a server speaking `contract` can do (not detected yet: V1's; `/api` that cannot compact: without it). */
export function capabilitiesOf(contract: OpencodeContract | undefined, compactUnavailable: boolean): Capabilities {
  if (contract !== "api") return CAPABILITIES;
  return compactUnavailable ? { ...API_CAPABILITIES, compact: false } : API_CAPABILITIES;
}
