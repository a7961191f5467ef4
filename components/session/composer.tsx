"use client";
import { useCallback, useEffect, useId, useMemo, useRef, useState } from "react";
import type { AgentInfo, ModelInfo } from "@/lib/api";
import { type Attachment, attachmentError, attachmentMime, formatBytes } from "@/lib/attachments";
import { useFileMentions } from "@/lib/hooks/use-file-mentions";
import { insertMention, keptMentions, mentionAt } from "@/lib/mentions";
import type { Capabilities, ModelRef, SessionSettings } from "@/lib/model";
import { cx } from "../ui/cx";
import { IconBot, IconChevronDown, IconPaperclip, IconSparkle, IconStop, IconX } from "../ui/icons";

function readDataUrl(file: File, mime: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => {
      const s = String(r.result);
      // The browser's own type may be empty: the data is the same, the type is ours.
      resolve(`data:${mime};base64,${s.slice(s.indexOf(",") + 1)}`);
    };
    r.onerror = () => reject(r.error ?? new Error(`Could not read ${file.name}`));
    r.readAsDataURL(file);
  });
}

export interface ComposerProps {
  busy: boolean;
  /** Why sending is impossible right now (backend down, session missing); undefined = can send. */
  disabledReason?: string;
  canAbort: boolean;
  /** Sends a prompt: its text, attached files, and the files `@`-mentioned in the text (paths relative to the session's directory). */
  onSend(text: string, files: Attachment[], mentions: string[]): Promise<void>;
  /** `@` file mentions: the session's `…/files` route (absent: this backend takes no mentions). */
  filesUrl?: string;
  /** The files this backend takes with a prompt (absent: no attach control). */
  attachments?: Capabilities["attachments"];
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
  attachments,
  filesUrl,
}: ComposerProps) {
  const [text, setText] = useState(initialText ?? "");
  const [queue, setQueue] = useState<{ id: number; text: string; files: Attachment[]; mentions: string[] }[]>([]);
  const [files, setFiles] = useState<Attachment[]>([]);
  const [dragging, setDragging] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const canAttach = Boolean(attachments?.images || attachments?.files);
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
  const menuId = useId();
  const optionId = (i: number) => `${menuId}-option-${i}`;

  // `@` file mentions: open while the caret ends an `@word`, unless closed with Escape.
  const [caret, setCaret] = useState(0);
  const [mentionClosed, setMentionClosed] = useState(false);
  const [mentioned, setMentioned] = useState<string[]>([]);
  const [fileIndex, setFileIndex] = useState(0);
  const mention = filesUrl && !mentionClosed && matches.length === 0 ? mentionAt(text, caret) : undefined;
  const found = useFileMentions(filesUrl, mention?.query);
  const fileItems = mention ? found.items : [];
  const activeFile = Math.min(fileIndex, fileItems.length - 1);
  // Keeps the active option in view as the arrows move it (the list scrolls, never the page).
  const fileList = useRef<HTMLUListElement>(null);
  useEffect(() => {
    const list = fileList.current;
    const el = list?.children[activeFile] as HTMLElement | undefined;
    if (!list || !el) return;
    if (el.offsetTop < list.scrollTop) list.scrollTop = el.offsetTop;
    else if (el.offsetTop + el.offsetHeight > list.scrollTop + list.clientHeight)
      list.scrollTop = el.offsetTop + el.offsetHeight - list.clientHeight;
  }, [activeFile]);
  const pickFile = (p: string) => {
    if (!mention) return;
    const next = insertMention(text, mention.start, caret, p);
    setText(next.text);
    setCaret(next.caret);
    setMentioned((cur) => (cur.includes(p) ? cur : [...cur, p]));
    setFileIndex(0);
    requestAnimationFrame(() => {
      ref.current?.focus();
      ref.current?.setSelectionRange(next.caret, next.caret);
    });
  };

  /** Adds files (picked, pasted or dropped); those that cannot go are named in the error line. */
  const addFiles = async (list: FileList | File[]) => {
    const picked = Array.from(list);
    if (!picked.length) return;
    const added: Attachment[] = [];
    const errors: string[] = [];
    let count = files.length;
    let bytes = files.reduce((n, f) => n + f.size, 0);
    for (const f of picked) {
      const mime = attachmentMime(f);
      const why = attachmentError(f, attachments, { count, bytes });
      if (why) {
        errors.push(why);
        continue;
      }
      try {
        const name = f.name || `pasted.${mime.split("/")[1] ?? "bin"}`;
        added.push({ id: nextId.current++, name, mime, size: f.size, url: await readDataUrl(f, mime) });
        count++;
        bytes += f.size;
      } catch (err) {
        errors.push(err instanceof Error ? err.message : `Could not read ${f.name}`);
      }
    }
    if (added.length) setFiles((cur) => [...cur, ...added]);
    setError(errors.length ? errors.join(" · ") : undefined);
    ref.current?.focus();
  };

  const send = useCallback(
    async (t: string, attached: Attachment[], mentions: string[]) => {
      setInflight(true);
      setError(undefined);
      try {
        await onSend(t, attached, mentions);
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
    void send(first!.text, first!.files, first!.mentions).then((ok) => {
      if (!ok) setQueue((q) => [first!, ...q]);
    });
  }, [busy, inflight, disabledReason, queue, send]);

  const submit = async () => {
    const t = text.trim();
    if ((!t && !files.length) || disabledReason) return;
    const attached = files;
    const mentions = keptMentions(t, mentioned);
    if (busy || inflight || queue.length) {
      setQueue((q) => [...q, { id: nextId.current++, text: t, files: attached, mentions }]);
      setText("");
      setFiles([]);
      setMentioned([]);
      return;
    }
    setText("");
    setFiles([]);
    setMentioned([]);
    const ok = await send(t, attached, mentions);
    if (!ok) {
      setText((cur) => cur || t);
      setFiles((cur) => (cur.length ? cur : attached));
      setMentioned((cur) => (cur.length ? cur : mentions));
    }
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
                <span className="min-w-0 flex-1 truncate">
                  {q.text}
                  {q.files.length
                    ? `${q.text ? " · " : ""}${q.files.length} ${q.files.length === 1 ? "file" : "files"}`
                    : ""}
                </span>
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
        {files.length > 0 && (
          <ul className="mb-2 flex flex-wrap gap-1.5" aria-label="Attached files" data-testid="attachments">
            {files.map((f) => (
              <li
                key={f.id}
                data-testid="attachment"
                data-name={f.name}
                className="flex h-8 max-w-[260px] items-center gap-1.5 rounded-md border border-border bg-sunken pl-1.5 pr-1 text-[12px] text-muted"
              >
                {f.mime.startsWith("image/") ? (
                  // biome-ignore lint/performance/noImgElement: a data: URL thumbnail; next/image would send it through the optimizer
                  <img src={f.url} alt="" className="size-5 shrink-0 rounded-sm border border-border object-cover" />
                ) : (
                  <IconPaperclip size={13} className="shrink-0 text-faint" />
                )}
                <span className="min-w-0 truncate text-fg" title={f.name}>
                  {f.name}
                </span>
                <span className="shrink-0 text-[11px] tabular-nums text-faint">{formatBytes(f.size)}</span>
                <button
                  type="button"
                  className="grid size-6 shrink-0 place-items-center rounded hover:bg-raised hover:text-fg"
                  aria-label={`Remove ${f.name}`}
                  title="Remove"
                  onClick={() => setFiles((all) => all.filter((x) => x.id !== f.id))}
                >
                  <IconX className="size-3" />
                </button>
              </li>
            ))}
          </ul>
        )}
        <div
          className={cx(
            "relative flex items-end gap-2 rounded-lg border bg-sunken p-1.5 pl-3 focus-within:border-accent",
            disabledReason ? "border-border opacity-70" : "border-border-strong",
            dragging && "border-accent ring-2 ring-accent/40",
            canAttach && "pl-1.5",
          )}
          onDragOver={(e) => {
            if (!canAttach || disabledReason || !e.dataTransfer.types.includes("Files")) return;
            e.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={(e) => {
            setDragging(false);
            if (!canAttach || disabledReason || !e.dataTransfer.files.length) return;
            e.preventDefault();
            void addFiles(e.dataTransfer.files);
          }}
          data-testid="composer-box"
        >
          {canAttach ? (
            <>
              <button
                type="button"
                onClick={() => fileInput.current?.click()}
                disabled={Boolean(disabledReason)}
                aria-label="Attach files"
                title={attachments?.files ? "Attach images or files (or paste, or drop them here)" : "Attach images"}
                data-testid="attach"
                className="grid size-8 shrink-0 place-items-center rounded-md text-muted hover:bg-raised hover:text-fg disabled:opacity-40 phone:size-[44px]"
              >
                <IconPaperclip size={15} />
              </button>
              <input
                ref={fileInput}
                type="file"
                multiple
                hidden
                accept={attachments?.files ? undefined : "image/png,image/jpeg,image/gif,image/webp"}
                data-testid="attach-input"
                onChange={(e) => {
                  if (e.target.files) void addFiles(e.target.files);
                  e.target.value = "";
                }}
              />
            </>
          ) : null}
          {matches.length > 0 ? (
            <ul
              role="listbox"
              id={menuId}
              aria-label="Slash commands"
              data-testid="command-menu"
              className="absolute inset-x-0 bottom-full z-20 mb-1.5 overflow-hidden rounded-lg border border-border-strong bg-panel py-1 shadow-lg"
            >
              {matches.map((c, i) => {
                const active = i === Math.min(cmdIndex, matches.length - 1);
                return (
                  <li
                    key={c.name}
                    id={optionId(i)}
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
          {mention && fileItems.length > 0 ? (
            <ul
              role="listbox"
              id={menuId}
              ref={fileList}
              aria-label="Files to mention"
              data-testid="mention-menu"
              className="absolute inset-x-0 bottom-full z-20 mb-1.5 max-h-[min(45dvh,300px)] overflow-y-auto overscroll-contain rounded-lg border border-border-strong bg-panel py-1 shadow-lg"
            >
              {fileItems.map((p, i) => {
                const active = i === activeFile;
                const slash = p.lastIndexOf("/");
                return (
                  <li
                    key={p}
                    id={optionId(i)}
                    role="option"
                    aria-selected={active}
                    data-testid="mention-option"
                    data-path={p}
                    onMouseDown={(e) => {
                      e.preventDefault();
                      pickFile(p);
                    }}
                    onMouseEnter={() => setFileIndex(i)}
                    className={cx(
                      "flex h-7 min-w-0 cursor-pointer items-center gap-2 px-3 font-mono text-[12.5px] phone:h-10",
                      active ? "bg-raised text-fg" : "text-muted",
                    )}
                  >
                    <IconPaperclip size={12} className="shrink-0 text-faint" />
                    <span className="shrink-0 text-fg">{p.slice(slash + 1)}</span>
                    {slash > 0 ? <span className="min-w-0 flex-1 truncate text-faint">{p.slice(0, slash)}</span> : null}
                  </li>
                );
              })}
            </ul>
          ) : mention && (found.error || !found.loading) ? (
            <p
              role="status"
              data-testid="mention-status"
              className="absolute inset-x-0 bottom-full z-20 mb-1.5 truncate rounded-lg border border-border-strong bg-panel px-3 py-1.5 text-[12px] text-muted shadow-lg"
            >
              {found.error ? `Files unavailable: ${found.error}` : "No matching files"}
            </p>
          ) : null}
          <textarea
            ref={ref}
            value={text}
            onChange={(e) => {
              setText(e.target.value);
              setCaret(e.target.selectionStart);
              setCmdIndex(0);
              setCmdClosed(false);
              setFileIndex(0);
              setMentionClosed(false);
            }}
            onSelect={(e) => setCaret(e.currentTarget.selectionStart)}
            onPaste={(e) => {
              // A pasted image (a screenshot, a photo on a phone) or file is attached, not pasted as text.
              if (!canAttach || !e.clipboardData.files.length) return;
              e.preventDefault();
              void addFiles(e.clipboardData.files);
            }}
            onKeyDown={(e) => {
              if (mention && fileItems.length > 0) {
                if (e.key === "ArrowDown" || e.key === "ArrowUp") {
                  e.preventDefault();
                  const step = e.key === "ArrowDown" ? 1 : -1;
                  setFileIndex((activeFile + step + fileItems.length) % fileItems.length);
                  return;
                }
                if ((e.key === "Tab" || e.key === "Enter") && !e.shiftKey && !e.nativeEvent.isComposing) {
                  e.preventDefault();
                  pickFile(fileItems[activeFile]!);
                  return;
                }
              }
              if (mention && e.key === "Escape") {
                e.preventDefault();
                setMentionClosed(true);
                return;
              }
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
            // A textarea takes no combobox role: as a textbox it names its popup list and active option.
            aria-autocomplete={commands?.length || filesUrl ? "list" : undefined}
            aria-controls={matches.length > 0 || fileItems.length > 0 ? menuId : undefined}
            aria-activedescendant={
              matches.length > 0
                ? optionId(Math.min(cmdIndex, matches.length - 1))
                : fileItems.length > 0
                  ? optionId(activeFile)
                  : undefined
            }
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
            disabled={Boolean(disabledReason) || (!text.trim() && files.length === 0)}
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
            Enter to send · Shift+Enter for a new line{filesUrl ? " · @ mentions a file" : ""}
          </span>
        </div>
      </div>
    </div>
  );
}
