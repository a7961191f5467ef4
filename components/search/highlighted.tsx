import type { ReactNode } from "react";

/**
 * A search snippet with the words found marked. The text stays text: React renders each piece as a
 * string child, so nothing in a message ever becomes markup.
 */
export function Highlighted({ text, matches }: { text: string; matches: [number, number][] }) {
  const out: ReactNode[] = [];
  let at = 0;
  for (const [a, b] of matches) {
    if (a < at || b <= a) continue;
    if (a > at) out.push(text.slice(at, a));
    out.push(
      <mark key={a} className="rounded-[2px] bg-accent/25 px-px text-fg">
        {text.slice(a, b)}
      </mark>,
    );
    at = b;
  }
  if (at < text.length) out.push(text.slice(at));
  return <>{out}</>;
}
