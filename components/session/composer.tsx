"use client";
import { useEffect, useId, useMemo, useRef, useState } from "react";
import { type Attachment, readAttachments } from "@/lib/attachments";
import { usePromptQueue } from "@/lib/hooks/use-prompt-queue";
import { commandMatches, type SlashCommand } from "@/lib/slash-commands";
import { useFileMentions } from "@/lib/hooks/use-file-mentions";
import { insertMention, keptMentions, mentionAt } from "@/lib/mentions";
import { onMentionRequest } from "@/lib/client/mention-bus";
import type { Capabilities, SessionSettings } from "@/lib/model";
import { cx } from "../ui/cx";
import { IconPaperclip, IconStop } from "../ui/icons";
import { AttachedFiles, QueuedPrompts } from "./composer-lists";
import { CommandMenu, MentionMenu, MentionStatus } from "./composer-menus";
import { ComposerOptions, type ComposerOptionsProps } from "./composer-options";

/** The agent and model pickers (ComposerOptionsProps) are shown under the box. */
export interface ComposerProps extends ComposerOptionsProps {
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
  /** Slash commands the agent advertises: typing `/` offers them. */
  commands?: SessionSettings["commands"];
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
  commands,
  attachments,
  filesUrl,
  ...pickers
}: ComposerProps) {
  const [text, setText] = useState(initialText ?? "");
  const [files, setFiles] = useState<Attachment[]>([]);
  const [dragging, setDragging] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const canAttach = Boolean(attachments?.images || attachments?.files);
  const [error, setError] = useState<string>();
  const { queue, mustQueue, send, enqueue, remove } = usePromptQueue({
    busy,
    disabledReason,
    onSend,
    onError: setError,
  });
  const [stopping, setStopping] = useState(false);
  const ref = useRef<HTMLTextAreaElement>(null);
  const nextId = useRef(1);
  // The slash-command menu: open while a `/word` is typed, unless closed with Escape.
  const [cmdIndex, setCmdIndex] = useState(0);
  const [cmdClosed, setCmdClosed] = useState(false);
  const matches = useMemo(() => (cmdClosed ? [] : commandMatches(text, commands)), [text, commands, cmdClosed]);
  const complete = (c: SlashCommand) => {
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
  // A file mentioned from the file browser: `@path` at the end of the prompt.
  useEffect(() => {
    if (!filesUrl) return;
    return onMentionRequest((p) => {
      setText((t) => `${t}${t === "" || /\s$/.test(t) ? "" : " "}@${p} `);
      setMentioned((cur) => (cur.includes(p) ? cur : [...cur, p]));
      requestAnimationFrame(() => ref.current?.focus());
    });
  }, [filesUrl]);
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
    const { added, errors } = await readAttachments(picked, attachments, files, () => nextId.current++);
    if (added.length) setFiles((cur) => [...cur, ...added]);
    setError(errors.length ? errors.join(" · ") : undefined);
    ref.current?.focus();
  };

  useEffect(() => {
    if (!busy) setStopping(false);
  }, [busy]);

  const submit = async () => {
    const t = text.trim();
    if ((!t && !files.length) || disabledReason) return;
    const attached = files;
    const mentions = keptMentions(t, mentioned);
    if (mustQueue) {
      enqueue(t, attached, mentions);
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
        {queue.length > 0 && <QueuedPrompts queue={queue} onRemove={remove} />}
        {error && (
          <p className="mb-1.5 text-[12px] text-err" role="alert" data-testid="composer-error">
            {error}
          </p>
        )}
        {files.length > 0 && (
          <AttachedFiles files={files} onRemove={(id) => setFiles((all) => all.filter((x) => x.id !== id))} />
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
            <CommandMenu
              id={menuId}
              items={matches}
              activeIndex={Math.min(cmdIndex, matches.length - 1)}
              optionId={optionId}
              onPick={complete}
              onHover={setCmdIndex}
            />
          ) : null}
          {mention && fileItems.length > 0 ? (
            <MentionMenu
              id={menuId}
              listRef={fileList}
              items={fileItems}
              activeIndex={activeFile}
              optionId={optionId}
              onPick={pickFile}
              onHover={setFileIndex}
            />
          ) : mention && (found.error || !found.loading) ? (
            <MentionStatus error={found.error} />
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
            title={disabledReason}
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
        <ComposerOptions {...pickers} filesUrl={filesUrl} />
      </div>
    </div>
  );
}
