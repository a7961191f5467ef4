"use client";
import { memo, useState, type ReactNode } from "react";
import type { AnsweredInterrupt, FileBlock, Message, MessageError, NoticeBlock, Usage } from "@/lib/model";
import { decisionLabel } from "@/lib/attribution";
import { Badge } from "@/components/ui/badge";
import { cx } from "@/components/ui/cx";
import { IconAlertCircle, IconCheck, IconFold, IconStop, IconX } from "@/components/ui/icons";
import { PulseDots } from "@/components/ui/spinner";
import { BlockView, FileView, NoticeView } from "./block-view";
import { formatCost, formatDuration, formatTokens } from "./format";
import { MessageToolbar } from "./message-actions";
import { contextTokens } from "@/lib/timeline/selectors";

/** The divider a compaction leaves in the timeline: what came before was summarized. */
export function CompactionMarker({ block }: { block: NoticeBlock }) {
  return (
    <div
      className="flex w-full items-center gap-3 py-1 text-[11.5px] text-faint"
      data-testid="compaction-marker"
      role="status"
    >
      <span className="h-px flex-1 bg-border" />
      <span className="inline-flex items-center gap-1.5">
        <IconFold size={12} />
        {block.text}
      </span>
      <span className="h-px flex-1 bg-border" />
    </div>
  );
}

/* -------------------------------------------------------------------------------------- user */

const CLAMP_LINES = 14;

function UserMessage({ message, showAuthor }: { message: Message; showAuthor: boolean }) {
  const text = message.blocks
    .filter((b) => b.kind === "text")
    .map((b) => b.text)
    .join("\n\n")
    .trim();
  const files = message.blocks.filter((b): b is FileBlock => b.kind === "file");
  const notices = message.blocks.filter((b): b is NoticeBlock => b.kind === "notice");
  const long = text.split("\n").length > CLAMP_LINES || text.length > 1400;
  const [full, setFull] = useState(false);
  return (
    <div
      className="group/msg flex flex-col items-end gap-1.5"
      data-testid="message"
      data-role="user"
      data-message-id={message.id}
      data-author={message.author?.id}
    >
      {showAuthor && message.author ? (
        <div className="px-1 text-[11.5px] leading-4 text-faint" data-testid="message-author">
          {message.author.name || message.author.id}
        </div>
      ) : null}
      {text ? (
        <div className="flex w-full items-start justify-end gap-1.5">
          <MessageToolbar message={message} className="mt-1" />
          <div
            className="max-w-[85%] rounded-xl rounded-br-[4px] border border-border bg-raised px-3.5 py-2 text-[13.5px] leading-[21px] text-fg"
            title={message.author ? `Sent by ${message.author.name || message.author.id}` : undefined}
          >
            <div
              className={cx("whitespace-pre-wrap [overflow-wrap:anywhere]", long && !full && "line-clamp-[14]")}
              data-testid="user-text"
            >
              {text}
            </div>
            {long ? (
              <button
                type="button"
                onClick={() => setFull((v) => !v)}
                className="mt-1 text-[12px] text-faint hover:text-fg"
              >
                {full ? "Show less" : "Show more"}
              </button>
            ) : null}
          </div>
        </div>
      ) : null}
      {files.map((f) => (
        <FileView key={f.id} block={f} />
      ))}
      {notices.map((n) =>
        n.code === "compaction" ? (
          <CompactionMarker key={n.id} block={n} />
        ) : (
          <div key={n.id} className="w-full">
            <NoticeView block={n} />
          </div>
        ),
      )}
    </div>
  );
}

/* --------------------------------------------------------------------------------- assistant */

/** "Amir allowed once · bash: rm -rf build" for each interrupt of the message someone answered. */
function AnsweredList({ answered }: { answered: AnsweredInterrupt[] }) {
  return (
    <ul className="flex flex-col gap-0.5" data-testid="answered-interrupts">
      {answered.map((a) => {
        const refused = a.decision === "reject" || a.decision === "decline" || a.decision === "cancel";
        return (
          <li
            key={a.interruptId}
            className="flex min-w-0 items-center gap-1.5 text-[11.5px] leading-5 text-faint"
            data-testid="answered-interrupt"
            data-decision={a.decision}
            title={`${a.answeredBy.name || a.answeredBy.id} ${decisionLabel(a.decision)}${a.title ? `: ${a.title}` : ""}`}
          >
            {refused ? (
              <IconX size={11} className="shrink-0 text-err" />
            ) : (
              <IconCheck size={11} className="shrink-0 text-ok" />
            )}
            <span className="shrink-0 text-muted">{a.answeredBy.name || a.answeredBy.id}</span>
            <span className="shrink-0">{decisionLabel(a.decision)}</span>
            {a.title ? (
              <>
                <Sep />
                <span className="truncate">{a.title}</span>
              </>
            ) : null}
          </li>
        );
      })}
    </ul>
  );
}

function usageTitle(u: Usage): string {
  const parts = [`Input ${u.inputTokens.toLocaleString("en-US")}`, `Output ${u.outputTokens.toLocaleString("en-US")}`];
  if (u.reasoningTokens) parts.push(`Reasoning ${u.reasoningTokens.toLocaleString("en-US")}`);
  if (u.cacheReadTokens) parts.push(`Cache read ${u.cacheReadTokens.toLocaleString("en-US")}`);
  if (u.cacheWriteTokens) parts.push(`Cache write ${u.cacheWriteTokens.toLocaleString("en-US")}`);
  if (u.costUsd) parts.push(`Cost $${u.costUsd.toFixed(4)}`);
  parts.push(`Context ${contextTokens(u).toLocaleString("en-US")}`);
  return parts.join(" · ");
}

function Sep() {
  return <span className="text-border-strong">·</span>;
}

function Footer({ message, streaming }: { message: Message; streaming: boolean }) {
  const u = message.usage;
  const cache = (u?.cacheReadTokens ?? 0) + (u?.cacheWriteTokens ?? 0);
  const took = message.completedAt !== undefined ? formatDuration(message.completedAt - message.createdAt) : "";
  const items: ReactNode[] = [];
  if (message.model)
    items.push(
      <span key="m" className="truncate" title={[message.model.provider, message.model.id].filter(Boolean).join("/")}>
        {message.model.id}
      </span>,
    );
  if (message.agent) items.push(<span key="a">{message.agent}</span>);
  if (u && !streaming) {
    items.push(
      <span key="u" className="tabular-nums" title={usageTitle(u)}>
        {formatTokens(u.inputTokens)} in · {formatTokens(u.outputTokens)} out
        {cache > 0 ? ` · ${formatTokens(cache)} cache` : ""}
      </span>,
    );
    if (u.costUsd && u.costUsd > 0)
      items.push(
        <span key="c" className="tabular-nums">
          {formatCost(u.costUsd)}
        </span>,
      );
  }
  if (took && !streaming)
    items.push(
      <span key="d" className="tabular-nums">
        {took}
      </span>,
    );
  // The model name alone: while streaming, "Working ·" carries its separator only when it shows.
  const onlyModel = items.length === 1 && Boolean(message.model);
  return (
    // A container, so a narrow timeline (beside the review panel) drops the model name rather than
    // squeezing it to a letter; each separator goes with the item before it.
    <div className="@container min-w-0">
      <div
        className="flex h-6 min-w-0 items-center gap-1.5 overflow-hidden whitespace-nowrap text-[11.5px] text-faint"
        data-testid="message-footer"
      >
        {streaming ? (
          <span className="flex shrink-0 items-center gap-1.5 text-muted">
            <PulseDots className="text-accent" />
            <span>Working</span>
            {items.length > (onlyModel ? 1 : 0) ? <Sep /> : null}
          </span>
        ) : null}
        {items.map((it, i) => (
          // The model name may shrink (it truncates); counts and times keep their width.
          <span
            key={i}
            className={cx(
              "items-center gap-1.5",
              i === 0 && message.model ? "hidden min-w-0 @[24rem]:flex" : "flex shrink-0",
            )}
          >
            {streaming && onlyModel ? <Sep /> : null}
            {it}
            {i < items.length - 1 ? <Sep /> : null}
          </span>
        ))}
        {message.summary ? <Badge className="ml-1">Summary</Badge> : null}
        {!streaming ? <MessageToolbar message={message} className="ml-auto" /> : null}
      </div>
    </div>
  );
}

function ErrorView({ error }: { error: MessageError }) {
  if (error.aborted) {
    return (
      <div className="flex h-6 items-center gap-1.5 text-[12.5px] text-faint" data-testid="message-stopped">
        <IconStop size={11} />
        Stopped
      </div>
    );
  }
  return (
    <div
      role="alert"
      data-testid="message-error"
      className="flex items-start gap-2 rounded-lg border border-err/30 bg-err/5 px-3 py-2 text-[12.5px] leading-[19px]"
    >
      <IconAlertCircle size={14} className="mt-[2.5px] shrink-0 text-err" />
      <div className="min-w-0">
        <span className="font-medium text-err">{error.name}</span>
        {error.message ? (
          <span className="whitespace-pre-wrap text-fg/85 [overflow-wrap:anywhere]"> — {error.message}</span>
        ) : null}
      </div>
    </div>
  );
}

function AssistantMessage({ message, streaming }: { message: Message; streaming: boolean }) {
  const blocks = message.blocks;
  const last = blocks.length - 1;
  return (
    <div
      className="group/msg flex min-w-0 flex-col gap-2.5"
      data-testid="message"
      data-role="assistant"
      data-message-id={message.id}
    >
      {blocks.map((b, i) => (
        <BlockView key={b.id} block={b} streaming={streaming && i === last} />
      ))}
      {message.answered?.length ? <AnsweredList answered={message.answered} /> : null}
      {message.error ? <ErrorView error={message.error} /> : null}
      <Footer message={message} streaming={streaming} />
    </div>
  );
}

function SystemMessage({ message }: { message: Message }) {
  const text = message.blocks
    .filter((b) => b.kind === "text")
    .map((b) => b.text)
    .join("\n\n");
  return (
    <div
      className="whitespace-pre-wrap border-l-2 border-border-strong py-1 pl-3 text-[12.5px] text-muted"
      data-testid="message"
      data-role="system"
      data-message-id={message.id}
    >
      {text}
    </div>
  );
}

export interface MessageViewProps {
  message: Message;
  /** This message is the one the agent is currently producing. */
  streaming?: boolean;
  /** Name the sender of a user message (more than one person prompts in this session). */
  showAuthor?: boolean;
}

/** One message of the timeline. Re-renders only when the message object (or a prop) changes. */
export const MessageView = memo(function MessageView({
  message,
  streaming = false,
  showAuthor = false,
}: MessageViewProps) {
  if (message.role === "user") return <UserMessage message={message} showAuthor={showAuthor} />;
  if (message.role === "system") return <SystemMessage message={message} />;
  return <AssistantMessage message={message} streaming={streaming} />;
});
