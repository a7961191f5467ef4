"use client";
import { useState } from "react";
import type { SessionSettingBody } from "@/lib/api";
import type { Session, SessionOption } from "@/lib/model";
import { apiSend, sessionPath } from "@/lib/client/api-client";
import { cx } from "../ui/cx";
import { Spinner } from "../ui/spinner";

/**
 * The session's settings as the agent offers them (ACP modes and config options: mode, model,
 * reasoning effort, permissions…), one small select each. Changes go through the agent; the row
 * shows the value the agent confirms (`session.updated`).
 */
export function SessionSettingsRow({ backendId, session }: { backendId: string; session: Session | null }) {
  const options = session?.settings?.options ?? [];
  const [pending, setPending] = useState<string>();
  const [error, setError] = useState<string>();
  if (!session || options.length === 0) return null;

  const change = async (opt: SessionOption, value: string | boolean) => {
    setPending(opt.id);
    setError(undefined);
    try {
      const body: SessionSettingBody = { id: opt.id, value };
      await apiSend("POST", `${sessionPath(backendId, session.id)}/settings`, body);
    } catch (err) {
      setError(`${opt.name}: ${err instanceof Error ? err.message : "could not change it"}`);
    } finally {
      setPending(undefined);
    }
  };

  return (
    <div
      className="flex min-h-9 shrink-0 flex-wrap items-center gap-x-4 gap-y-1 border-b border-border bg-panel px-4 py-1 text-[12px]"
      data-testid="session-settings"
    >
      {options.map((o) => (
        <label key={o.id} className="inline-flex items-center gap-1.5 text-muted" title={o.description}>
          <span>{o.name}</span>
          {o.type === "boolean" ? (
            <input
              type="checkbox"
              checked={o.value === true}
              disabled={pending !== undefined}
              onChange={(e) => void change(o, e.target.checked)}
              data-testid={`session-option-${o.id}`}
              className="accent-[var(--sb-accent)]"
            />
          ) : (
            <select
              value={String(o.value)}
              disabled={pending !== undefined}
              onChange={(e) => void change(o, e.target.value)}
              data-testid={`session-option-${o.id}`}
              className={cx(
                "h-6 max-w-[220px] rounded border border-border bg-sunken px-1.5 text-[12px] text-fg outline-none focus:border-accent",
                pending === o.id && "opacity-60",
              )}
            >
              {!o.choices.some((c) => c.value === o.value) && (
                <option value={String(o.value)}>{String(o.value)}</option>
              )}
              {o.choices.map((c) => (
                <option key={c.value} value={c.value} title={c.description}>
                  {c.name}
                </option>
              ))}
            </select>
          )}
          {pending === o.id && <Spinner size={10} />}
        </label>
      ))}
      {error && (
        <span className="text-err" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}
