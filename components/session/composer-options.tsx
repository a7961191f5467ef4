"use client";
/** The row under the prompt box: the agent and model pickers for the next prompt, and the keyboard hint. */
import type { AgentInfo, ModelInfo } from "@/lib/api";
import type { ModelRef } from "@/lib/model";
import { cx } from "../ui/cx";
import { IconBot, IconChevronDown, IconSparkle } from "../ui/icons";

const modelKey = (m: { provider?: string; id: string }) => `${m.provider ?? ""}/${m.id}`;

/** A compact native select with an icon: accessible, keyboard-friendly, themed by color-scheme. */
function Picker({
  icon,
  value,
  onChange,
  disabledReason,
  testId,
  label,
  children,
}: {
  icon: React.ReactNode;
  value: string;
  onChange(v: string): void;
  disabledReason?: string;
  testId: string;
  label: string;
  children: React.ReactNode;
}) {
  return (
    <label
      className={cx(
        "relative inline-flex h-6 shrink-0 items-center gap-1 rounded-md pl-1.5 pr-5 text-[11.5px] has-[select:focus-visible]:ring-2 has-[select:focus-visible]:ring-accent/60",
        disabledReason ? "text-faint" : "text-muted hover:bg-raised hover:text-fg",
      )}
      title={disabledReason ?? label}
    >
      <span className="shrink-0">{icon}</span>
      <select
        value={value}
        onChange={(e) => onChange(e.target.value)}
        disabled={Boolean(disabledReason)}
        data-testid={testId}
        aria-label={label}
        className="max-w-[220px] cursor-pointer appearance-none truncate bg-transparent outline-none [field-sizing:content] disabled:cursor-not-allowed"
      >
        {children}
      </select>
      <IconChevronDown size={11} className="pointer-events-none absolute right-1.5 shrink-0 text-faint" />
    </label>
  );
}

export interface ComposerOptionsProps {
  /** The model picker: the backend's models and the one the next prompt uses. */
  models?: ModelInfo[] | undefined;
  model?: ModelRef | undefined;
  onModel?: ((model: ModelRef) => void) | undefined;
  /** Why the model cannot be chosen (the backend has no model list). */
  modelReason?: string | undefined;
  /** The agent / mode picker. */
  agents?: AgentInfo[] | undefined;
  agent?: string | undefined;
  onAgent?: ((agent: string) => void) | undefined;
  agentReason?: string | undefined;
  /** The session's `…/files` route: `@` mentions are offered. */
  filesUrl?: string | undefined;
}

export function ComposerOptions({
  models,
  model,
  onModel,
  modelReason,
  agents,
  agent,
  onAgent,
  agentReason,
  filesUrl,
}: ComposerOptionsProps) {
  // Always there (pickers join it once the backend's lists arrive), so the composer's height does not
  // change after the page loads.
  return (
    <div className="mt-1.5 flex h-6 min-w-0 items-center gap-1" data-testid="composer-options">
      {agents && agents.length > 0 && onAgent ? (
        <Picker
          icon={<IconBot size={12} />}
          value={agent ?? ""}
          onChange={onAgent}
          testId="agent-picker"
          label="Agent / mode for the next prompt"
          {...(agentReason ? { disabledReason: agentReason } : {})}
        >
          {agents.map((a) => (
            <option key={a.id} value={a.id} title={a.description}>
              {a.label}
            </option>
          ))}
        </Picker>
      ) : null}
      {models && onModel ? (
        <Picker
          icon={<IconSparkle size={12} />}
          value={model ? modelKey(model) : ""}
          onChange={(v) => {
            const m = models.find((x) => modelKey(x) === v);
            if (m) onModel({ provider: m.provider, id: m.id });
          }}
          testId="model-picker"
          label="Model for the next prompt"
          {...(modelReason ? { disabledReason: modelReason } : {})}
        >
          {!model ? <option value="">Default model</option> : null}
          {model && !models.some((m) => modelKey(m) === modelKey(model)) ? (
            <option value={modelKey(model)}>{model.id}</option>
          ) : null}
          {[...new Set(models.map((m) => m.providerLabel ?? m.provider))].map((group) => (
            <optgroup key={group} label={group}>
              {models
                .filter((m) => (m.providerLabel ?? m.provider) === group)
                .map((m) => (
                  <option key={modelKey(m)} value={modelKey(m)}>
                    {m.label}
                  </option>
                ))}
            </optgroup>
          ))}
        </Picker>
      ) : modelReason ? (
        <span className="inline-flex h-6 items-center gap-1 px-1.5 text-[11.5px] text-faint" title={modelReason}>
          <IconSparkle size={12} /> Model fixed
        </span>
      ) : null}
      <span className="ml-auto hidden text-[11px] text-faint @lg:inline">
        Enter to send · Shift+Enter for a new line{filesUrl ? " · @ mentions a file" : ""}
      </span>
    </div>
  );
}
