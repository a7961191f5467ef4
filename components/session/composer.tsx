"use client";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { AgentInfo, ModelInfo } from "@/lib/api";
import type { ModelRef, SessionSettings } from "@/lib/model";
import { cx } from "../ui/cx";
import { IconBot, IconChevronDown, IconSparkle, IconStop, IconX } from "../ui/icons";

export interface ComposerProps {
  busy: boolean;
  /** Why sending is impossible right now (backend down, session missing); undefined = can send. */
  disabledReason?: string;
  canAbort: boolean;
  onSend(text: string): Promise<void>;
  onAbort(): Promise<void>;
  /** Text to start with (a prompt being re-asked in a fork). */
  initialText?: string;
  /** The model picker: the backend's models and the one the next prompt uses. */
  models?: ModelInfo[];
  model?: ModelRef;
  onModel?(model: ModelRef): void;
  /** Why the model cannot be chosen (the backend has no model list). */
  modelReason?: string;
  /** The agent / mode picker. */
  agents?: AgentInfo[];
  agent?: string;
  onAgent?(agent: string): void;
  agentReason?: string;
  /** Slash commands the agent advertises: typing `/` offers them. */
  commands?: SessionSettings["commands"];
}

type Command = NonNullable<SessionSettings["commands"]>[number];

/** The commands a `/word` being typed could complete to (names starting with it first). */
function commandMatches(text: string, commands: readonly Command[] | undefined): Command[] {
  const m = /^\/(\S*)$/.exec(text);
  if (!m || !commands?.length) return [];
  const q = m[1]!.toLowerCase();
  const starts = commands.filter((c) => c.name.toLowerCase().startsWith(q));
  const contains = q
    ? commands.filter((c) => !c.name.toLowerCase().startsWith(q) && c.name.toLowerCase().includes(q))
    : [];
  return [...starts, ...contains].slice(0, 8);
}

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

/**
 * The prompt box. Enter sends, Shift+Enter is a new line. While the agent works, prompts are
 * queued visibly and sent one by one when it is idle again; Stop (or Escape) aborts the turn.
 */
export function Composer({
  busy,
  disabledReason,
  canAbort,
  onSend,
  onAbort,
  initialText,
  models,
  model,
  onModel,
  modelReason,
  agents,
  agent,
  onAgent,
  agentReason,
  commands,
}: ComposerProps) {
  const [text, setText] = useState(initialText ?? "");
  const [queue, setQueue] = useState<{ id: number; text: string }[]>([]);
  const [error, setError] = useState<string>();
  const [inflight, setInflight] = useState(false);
  const [stopping, setStopping] = useState(false);
  const ref = useRef<HTMLTextAreaElement>(null);
  const nextId = useRef(1);
  // The slash-command menu: open while a `/word` is typed, unless closed with Escape.
  const [cmdIndex, setCmdIndex] = useState(0);
  const [cmdClosed, setCmdClosed] = useState(false);
  const matches = useMemo(() => (cmdClosed ? [] : commandMatches(text, commands)), [text, commands, cmdClosed]);
  const complete = (c: Command) => {
    setText(`/${c.name} `);
    ref.current?.focus();
  };

  const send = useCallback(
    async (t: string) => {
      setInflight(true);
      setError(undefined);
      try {
        await onSend(t);
        // Hold the next queued prompt until the backend reports the turn (or a short grace).
        setTimeout(() => setInflight(false), 1500);
        return true;
      } catch (err) {
        setError(err instanceof Error ? err.message : "Could not send the prompt");
        setInflight(false);
        return false;
      }
    },
    [onSend],
  );

  useEffect(() => {
    if (busy) setInflight(false);
    if (!busy) setStopping(false);
  }, [busy]);

  // Drain the queue when the session is idle.
  useEffect(() => {
    if (busy || inflight || disabledReason || queue.length === 0) return;
    const [first, ...rest] = queue;
    setQueue(rest);
    void send(first!.text).then((ok) => {
      if (!ok) setQueue((q) => [first!, ...q]);
    });
  }, [busy, inflight, disabledReason, queue, send]);

  const submit = async () => {
    const t = text.trim();
    if (!t || disabledReason) return;
    if (busy || inflight || queue.length) {
      setQueue((q) => [...q, { id: nextId.current++, text: t }]);
      setText("");
      return;
    }
    setText("");
    const ok = await send(t);
    if (!ok) setText((cur) => cur || t);
  };

  const abort = async () => {
    setStopping(true);
    try {
      await onAbort();
    } catch (err) {
      setError(err instanceof Error ? err.message : "Could not stop the turn");
      setStopping(false);
    }
  };

  // Autosize up to ~10 lines without jumping.
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-measures the box when the text changes
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = "0px";
    el.style.height = `${Math.min(220, Math.max(44, el.scrollHeight))}px`;
  }, [text]);

  return (
    // Pinned at the bottom of the frame (which follows the visual viewport: components/shell/shell.tsx),
    // padded clear of a phone's home indicator.
    <div className="shrink-0 border-t border-border bg-panel px-4 pb-[max(0.75rem,env(safe-area-inset-bottom))] pt-2 phone:px-2.5 phone:pb-[max(0.5rem,env(safe-area-inset-bottom))]">
      <div className="@container mx-auto max-w-[880px]">
        {queue.length > 0 && (
          <ul className="mb-2 flex flex-col gap-1" aria-label="Queued prompts">
            {queue.map((q, i) => (
              <li
                key={q.id}
                data-testid="queued-prompt"
                className="flex items-center gap-2 rounded-md border border-dashed border-border-strong bg-sunken px-2 py-1 text-[12px] text-muted"
              >
                <span className="shrink-0 text-[10px] font-semibold uppercase tracking-wide text-faint">
                  Queued {i + 1}
                </span>
                <span className="min-w-0 flex-1 truncate">{q.text}</span>
                <button
                  type="button"
                  className="grid size-5 place-items-center rounded hover:bg-raised hover:text-fg"
                  title="Remove from queue"
                  onClick={() => setQueue((all) => all.filter((x) => x.id !== q.id))}
                >
                  <IconX className="size-3" />
                </button>
              </li>
            ))}
          </ul>
        )}
        {error && (
          <p className="mb-1.5 text-[12px] text-err" role="alert" data-testid="composer-error">
            {error}
          </p>
        )}
        <div
          className={cx(
            "relative flex items-end gap-2 rounded-lg border bg-sunken p-1.5 pl-3 focus-within:border-accent",
            disabledReason ? "border-border opacity-70" : "border-border-strong",
          )}
        >
          {matches.length > 0 ? (
            <ul
              role="listbox"
              aria-label="Slash commands"
              data-testid="command-menu"
              className="absolute inset-x-0 bottom-full z-20 mb-1.5 overflow-hidden rounded-lg border border-border-strong bg-panel py-1 shadow-lg"
            >
              {matches.map((c, i) => {
                const active = i === Math.min(cmdIndex, matches.length - 1);
                return (
                  <li
                    key={c.name}
                    role="option"
                    aria-selected={active}
                    data-testid="command-option"
                    data-name={c.name}
                    onMouseDown={(e) => {
                      e.preventDefault();
                      complete(c);
                    }}
                    onMouseEnter={() => setCmdIndex(i)}
                    className={cx(
                      "flex h-7 cursor-pointer items-center gap-2 px-3 text-[12.5px]",
                      active ? "bg-raised text-fg" : "text-muted",
                    )}
                  >
                    <span className="shrink-0 font-mono text-fg">/{c.name}</span>
                    {c.hint ? <span className="shrink-0 font-mono text-[11.5px] text-faint">{c.hint}</span> : null}
                    {c.description ? <span className="min-w-0 flex-1 truncate text-faint">{c.description}</span> : null}
                  </li>
                );
              })}
            </ul>
          ) : null}
          <textarea
            ref={ref}
            value={text}
            onChange={(e) => {
              setText(e.target.value);
              setCmdIndex(0);
              setCmdClosed(false);
            }}
            onKeyDown={(e) => {
              if (matches.length > 0) {
                const pick = matches[Math.min(cmdIndex, matches.length - 1)]!;
                if (e.key === "ArrowDown" || e.key === "ArrowUp") {
                  e.preventDefault();
                  const step = e.key === "ArrowDown" ? 1 : -1;
                  setCmdIndex((i) => (Math.min(i, matches.length - 1) + step + matches.length) % matches.length);
                  return;
                }
                if ((e.key === "Tab" || e.key === "Enter") && !e.shiftKey && !e.nativeEvent.isComposing) {
                  e.preventDefault();
                  complete(pick);
                  return;
                }
                if (e.key === "Escape") {
                  e.preventDefault();
                  setCmdClosed(true);
                  return;
                }
              }
              if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
                e.preventDefault();
                void submit();
              } else if (e.key === "Escape" && busy && canAbort) {
                e.preventDefault();
                void abort();
              }
            }}
            rows={1}
            placeholder={
              disabledReason ?? (busy ? "The agent is working — your message will be queued" : "Ask the agent…")
            }
            disabled={Boolean(disabledReason)}
            data-testid="composer-input"
            aria-label="Prompt"
            aria-autocomplete={commands?.length ? "list" : undefined}
            aria-expanded={commands?.length ? matches.length > 0 : undefined}
            className="min-h-[44px] min-w-0 flex-1 resize-none bg-transparent py-2 text-[13.5px] leading-5 text-fg outline-none placeholder:text-faint disabled:cursor-not-allowed phone:text-[16px]"
          />
          {busy && canAbort && (
            <button
              type="button"
              onClick={() => void abort()}
              disabled={stopping}
              data-testid="stop"
              title="Stop (Esc)"
              className="inline-flex h-8 items-center gap-1.5 rounded-md border border-err/40 bg-err/10 px-3 text-[12px] font-medium text-err hover:bg-err/20 disabled:opacity-60 phone:h-[44px]"
            >
              <IconStop className="size-3.5" />
              {stopping ? "Stopping…" : "Stop"}
            </button>
          )}
          <button
            type="button"
            onClick={() => void submit()}
            disabled={Boolean(disabledReason) || !text.trim()}
            data-testid="send"
            className="inline-flex h-8 items-center rounded-md bg-accent px-3 text-[12px] font-semibold text-accent-fg hover:brightness-110 disabled:opacity-40 phone:h-[44px] phone:px-4"
          >
            {busy ? "Queue" : "Send"}
          </button>
        </div>
        {/* Always there (pickers join it once the backend's lists arrive), so the composer's height does not change after the page loads. */}
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
            Enter to send · Shift+Enter for a new line
          </span>
        </div>
      </div>
    </div>
  );
}
