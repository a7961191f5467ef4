"use client";
import { createContext, useContext, useState } from "react";
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

/** Fork / revert / copy for one message; visible while the message is hovered or focused. */
export function MessageToolbar({ message, className }: { message: Message; className?: string }) {
  const ctx = useContext(MessageActionsContext);
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
  return (
    <div
      className={cx(
        "flex shrink-0 items-center gap-0.5 opacity-0 transition-opacity focus-within:opacity-100 group-hover/msg:opacity-100",
        className,
      )}
      data-testid="message-actions"
    >
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
    </div>
  );
}
