"use client";
import { createContext, useContext, useEffect, useState } from "react";
import type { Message } from "@/lib/model";
import { userText } from "@/lib/timeline/selectors";
import { CopyButton } from "@/components/ui/copy-button";
import { cx } from "@/components/ui/cx";
import { IconBranch, IconUndo } from "@/components/ui/icons";
import { Spinner } from "@/components/ui/spinner";

/** An action on a message: available, or not with the reason (shown on hover). */
export interface ActionState {
  /** false: the backend cannot do it at all (the button is hidden). */
  offered: boolean;
  /** Why it cannot run right now (the button is disabled with this as its title). */
  disabledReason?: string;
}

export interface MessageActionsValue {
  fork: ActionState;
  revert: ActionState;
  onFork(message: Message): Promise<void>;
  onRevert(message: Message): Promise<void>;
  /** Messages in the reverted tail get no actions. */
  isReverted(messageId: string): boolean;
}

/**
 * Per-message actions come through a context so the memoized message views do not re-render when
 * the session's status or the backend's capabilities change: only the small toolbars do.
 */
export const MessageActionsContext = createContext<MessageActionsValue | null>(null);

function ToolButton({
  label,
  title,
  onClick,
  disabledReason,
  testId,
  children,
}: {
  label: string;
  title: string;
  onClick(): Promise<void>;
  disabledReason?: string;
  testId: string;
  children: React.ReactNode;
}) {
  const [running, setRunning] = useState(false);
  return (
    <button
      type="button"
      aria-label={label}
      title={disabledReason ?? title}
      aria-disabled={disabledReason ? true : undefined}
      data-testid={testId}
      onClick={() => {
        if (disabledReason || running) return;
        setRunning(true);
        void onClick().finally(() => setRunning(false));
      }}
      className={cx(
        "inline-flex size-6 items-center justify-center rounded",
        disabledReason ? "cursor-not-allowed text-faint/60" : "text-faint hover:bg-raised hover:text-fg",
      )}
    >
      {running ? <Spinner size={11} /> : children}
    </button>
  );
}

/**
 * Whether the pointer is over the message around `el` or focus is inside it. Listens on the
 * message element itself, so only the toolbar re-renders, not the memoized message view.
 */
function useActiveMessage(el: HTMLElement | null): boolean {
  const [active, setActive] = useState(false);
  useEffect(() => {
    const host = el?.closest<HTMLElement>('[data-testid="message"]');
    if (!host) return;
    if (host.matches(":hover")) setActive(true);
    const on = () => setActive(true);
    const offHover = () => setActive(host.contains(document.activeElement));
    const offFocus = (e: FocusEvent) => {
      if (!(e.relatedTarget instanceof Node && host.contains(e.relatedTarget))) setActive(host.matches(":hover"));
    };
    host.addEventListener("pointerenter", on);
    host.addEventListener("pointerleave", offHover);
    host.addEventListener("focusin", on);
    host.addEventListener("focusout", offFocus);
    return () => {
      host.removeEventListener("pointerenter", on);
      host.removeEventListener("pointerleave", offHover);
      host.removeEventListener("focusin", on);
      host.removeEventListener("focusout", offFocus);
    };
  }, [el]);
  return active;
}

/**
 * Fork / revert / copy for one message, shown while the message is hovered or holds focus. The
 * buttons are rendered only then (about ten elements on every message otherwise): until then the
 * toolbar is one empty element of the same width, in the tab order, so the keyboard reaches it and
 * focusing it brings the buttons in.
 */
export function MessageToolbar({ message, className }: { message: Message; className?: string }) {
  const ctx = useContext(MessageActionsContext);
  const [el, setEl] = useState<HTMLDivElement | null>(null);
  const active = useActiveMessage(el);
  if (!ctx || ctx.isReverted(message.id)) return null;
  const isUser = message.role === "user";
  const text = isUser
    ? userText(message)
    : message.blocks
        .filter((b) => b.kind === "text")
        .map((b) => (b.kind === "text" ? b.text : ""))
        .join("\n\n")
        .trim();
  if (isUser && !text) return null;
  const buttons = Number(ctx.fork.offered) + Number(ctx.revert.offered) + Number(Boolean(text));
  if (buttons === 0) return null;
  return (
    <div
      ref={setEl}
      role="toolbar"
      aria-label="Message actions"
      tabIndex={active ? -1 : 0}
      // Size-6 buttons with a gap-0.5 between them: the same width before they are rendered.
      style={active ? undefined : { width: buttons * 24 + (buttons - 1) * 2, height: 24 }}
      className={cx(
        "flex shrink-0 items-center gap-0.5 rounded opacity-0 transition-opacity focus-within:opacity-100 focus-visible:opacity-100 group-hover/msg:opacity-100",
        className,
      )}
      data-testid="message-actions"
    >
      {active ? <ToolbarButtons message={message} ctx={ctx} isUser={isUser} text={text} /> : null}
    </div>
  );
}

function ToolbarButtons({
  message,
  ctx,
  isUser,
  text,
}: {
  message: Message;
  ctx: MessageActionsValue;
  isUser: boolean;
  text: string;
}) {
  return (
    <>
      {ctx.fork.offered ? (
        <ToolButton
          label="Fork from here"
          title={
            isUser
              ? "Fork: a new session with the messages before this one, this prompt ready to edit"
              : "Fork: a new session with the conversation up to here"
          }
          testId="fork-message"
          onClick={() => ctx.onFork(message)}
          {...(ctx.fork.disabledReason ? { disabledReason: ctx.fork.disabledReason } : {})}
        >
          <IconBranch size={13} />
        </ToolButton>
      ) : null}
      {ctx.revert.offered ? (
        <ToolButton
          label="Revert to before this message"
          title="Revert: restore files to before this message; it and what follows are dropped at your next prompt"
          testId="revert-message"
          onClick={() => ctx.onRevert(message)}
          {...(ctx.revert.disabledReason ? { disabledReason: ctx.revert.disabledReason } : {})}
        >
          <IconUndo size={13} />
        </ToolButton>
      ) : null}
      {text ? <CopyButton text={text} label={isUser ? "Copy prompt" : "Copy reply"} /> : null}
    </>
  );
}
