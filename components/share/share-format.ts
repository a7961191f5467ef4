/** Wording shared by the share dialog, the share page and the settings list. */
import type { ShareInfo } from "@/lib/api";

/** "Expires in 6 days" · "Expires in 40 min" · "Never expires" · "Expired". */
export function expiryText(expiresAt: number | null, now = Date.now()): string {
  if (expiresAt === null) return "Never expires";
  const s = Math.round((expiresAt - now) / 1000);
  if (s <= 0) return "Expired";
  if (s < 90) return `Expires in ${s}s`;
  const m = Math.round(s / 60);
  if (m < 90) return `Expires in ${m} min`;
  const h = Math.round(m / 60);
  if (h < 48) return `Expires in ${h} h`;
  return `Expires in ${Math.round(h / 24)} days`;
}

export function absoluteTime(ms: number): string {
  return new Date(ms).toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

export function scopeText(s: Pick<ShareInfo, "upToMessageId" | "live" | "includeToolOutput">): string {
  return [
    s.upToMessageId ? "Up to a message" : "Whole session",
    s.live ? "live" : "snapshot",
    s.includeToolOutput ? "with tool outputs" : "without tool outputs",
  ].join(" · ");
}
