/** The slash commands an agent advertises, and the ones a `/word` being typed could complete to. Pure. */
import type { SessionSettings } from "./model";

export type SlashCommand = NonNullable<SessionSettings["commands"]>[number];

/** The commands a `/word` being typed could complete to (names starting with it first, at most 8). */
export function commandMatches(text: string, commands: readonly SlashCommand[] | undefined): SlashCommand[] {
  const m = /^\/(\S*)$/.exec(text);
  if (!m || !commands?.length) return [];
  const q = m[1]!.toLowerCase();
  const starts = commands.filter((c) => c.name.toLowerCase().startsWith(q));
  const contains = q
    ? commands.filter((c) => !c.name.toLowerCase().startsWith(q) && c.name.toLowerCase().includes(q))
    : [];
  return [...starts, ...contains].slice(0, 8);
}
