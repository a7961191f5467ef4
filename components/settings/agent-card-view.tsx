"use client";
import type { AgentCardSummary } from "@/lib/model";
import { Badge } from "../ui/badge";

/**
 * What an A2A agent's card says (lib/model.ts AgentCardSummary): name, version, protocol, profile,
 * capabilities, skills and extensions. Everything is text from the agent, rendered as text.
 */
export function AgentCardView({ card, compact = false }: { card: AgentCardSummary; compact?: boolean }) {
  const caps = [
    card.streaming ? "streaming" : "no streaming (message/send)",
    ...(card.pushNotifications ? ["push notifications"] : []),
    ...(card.auth?.length ? [`auth: ${card.auth.join(", ")}`] : []),
  ];
  return (
    <div className="min-w-0 text-[12px]" data-testid="agent-card">
      {!compact && (
        <div className="flex flex-wrap items-center gap-2">
          <span className="text-[13px] font-medium text-fg" data-testid="agent-card-name">
            {card.name}
          </span>
          {card.version && (
            <span className="text-[11.5px] text-faint" data-testid="agent-card-version">
              v{card.version}
            </span>
          )}
          {card.protocolVersion && <Badge mono>A2A {card.protocolVersion}</Badge>}
          {card.profile && <Badge tone="ok">{card.profile}</Badge>}
        </div>
      )}
      {!compact && card.description && (
        <p className="mt-1 line-clamp-3 text-muted [overflow-wrap:anywhere]">{card.description}</p>
      )}
      <dl
        className={
          compact
            ? "mt-0.5 grid grid-cols-[88px_1fr] gap-x-3 gap-y-0.5"
            : "mt-1.5 grid grid-cols-[88px_1fr] gap-x-3 gap-y-1"
        }
      >
        {compact && (
          <>
            <dt className="text-faint">Agent</dt>
            <dd className="min-w-0 text-muted">
              {card.name}
              {card.protocolVersion ? ` · A2A ${card.protocolVersion}` : ""}
              {card.profile ? ` · ${card.profile}` : ""}
            </dd>
          </>
        )}
        <dt className="text-faint">Capabilities</dt>
        <dd className="min-w-0 text-muted" data-testid="agent-card-capabilities">
          {caps.join(" · ")}
        </dd>
        <dt className="text-faint">Skills</dt>
        <dd className="flex min-w-0 flex-wrap gap-1" data-testid="agent-card-skills">
          {card.skills.length === 0 && <span className="text-faint">none listed</span>}
          {card.skills.map((s) => (
            <span
              key={s.id}
              className="rounded bg-raised px-1.5 text-muted"
              title={s.description ?? s.id}
              data-testid="agent-card-skill"
            >
              {s.name}
            </span>
          ))}
        </dd>
        <dt className="text-faint">Extensions</dt>
        <dd className="flex min-w-0 flex-wrap gap-1" data-testid="agent-card-extensions">
          {card.extensions.length === 0 && <span className="text-faint">none</span>}
          {card.extensions.map((e) => (
            <span
              key={e.uri}
              className="rounded bg-raised px-1.5 font-mono text-[11px] text-muted [overflow-wrap:anywhere]"
              title={e.description ?? e.uri}
              data-testid="agent-card-extension"
            >
              {e.uri}
              {e.required ? " (required)" : ""}
            </span>
          ))}
        </dd>
      </dl>
    </div>
  );
}
