"use client";
import { useId, useRef, type ReactNode, type RefObject } from "react";
import { cx } from "./cx";
import { IconX } from "./icons";
import { useFocusTrap } from "./use-focus-trap";

/**
 * A modal dialog: a backdrop, the focus kept inside, Escape and the backdrop close it, the focus
 * goes back to what opened it. On a phone (≤ 768 px) it fills the screen as a sheet.
 */
export function Modal({
  title,
  onClose,
  children,
  testId,
  className,
  initialFocus,
  placement = "center",
  hideTitle,
  escapeCloses = true,
}: {
  title: string;
  onClose(): void;
  children: ReactNode;
  testId?: string;
  className?: string;
  initialFocus?: RefObject<HTMLElement | null>;
  placement?: "center" | "top";
  hideTitle?: boolean;
  /** false: Escape is left to what has the focus (a terminal); the close button and the backdrop still close it. */
  escapeCloses?: boolean;
}) {
  const panel = useRef<HTMLDivElement>(null);
  const titleId = useId();
  useFocusTrap(panel, { ...(escapeCloses ? { onEscape: onClose } : {}), ...(initialFocus ? { initialFocus } : {}) });
  return (
    <div
      className={cx(
        "fixed inset-0 z-[60] flex justify-center bg-black/50 p-4 phone:p-0",
        placement === "top" ? "items-start pt-[12vh] phone:pt-0" : "items-center",
      )}
      onMouseDown={(e) => e.target === e.currentTarget && onClose()}
    >
      <div
        ref={panel}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        data-testid={testId}
        className={cx(
          "flex max-h-[calc(100dvh-2rem)] w-full flex-col overflow-hidden rounded-xl border border-border-strong bg-panel shadow-2xl outline-none",
          "phone:h-full phone:max-h-none phone:rounded-none phone:border-0 phone:pb-[env(safe-area-inset-bottom)] phone:pt-[env(safe-area-inset-top)]",
          className,
        )}
      >
        {hideTitle ? (
          <h2 id={titleId} className="sr-only">
            {title}
          </h2>
        ) : (
          <div className="flex h-12 shrink-0 items-center gap-2 border-b border-border px-4">
            <h2 id={titleId} className="text-[14px] font-semibold">
              {title}
            </h2>
            <button
              type="button"
              onClick={onClose}
              className="ml-auto grid size-[40px] place-items-center rounded text-faint hover:bg-raised hover:text-fg wide:size-7"
              aria-label="Close"
              data-testid={testId ? `${testId}-close` : undefined}
            >
              <IconX size={14} />
            </button>
          </div>
        )}
        {children}
      </div>
    </div>
  );
}
