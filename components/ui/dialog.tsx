"use client";
import { useRef, type ReactNode } from "react";
import { cx } from "./cx";
import { useFocusTrap } from "./use-focus-trap";

/** A modal confirmation. Escape or the backdrop cancels; the safe button has the focus. */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  danger,
  busy,
  error,
  onConfirm,
  onCancel,
  testId = "confirm-dialog",
}: {
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  busy?: boolean;
  error?: string;
  onConfirm(): void;
  onCancel(): void;
  testId?: string;
}) {
  const cancelRef = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  useFocusTrap(panel, { onEscape: onCancel, initialFocus: cancelRef });
  return (
    <div
      className="fixed inset-0 z-50 grid place-items-center bg-black/40 p-4"
      onMouseDown={(e) => e.target === e.currentTarget && onCancel()}
    >
      <div
        ref={panel}
        role="alertdialog"
        aria-modal="true"
        aria-label={title}
        data-testid={testId}
        className="w-full max-w-[400px] rounded-xl border border-border-strong bg-panel p-4 shadow-2xl"
      >
        <h2 className="text-[14px] font-semibold">{title}</h2>
        {children ? <div className="mt-1.5 text-[12.5px] leading-5 text-muted">{children}</div> : null}
        {error ? (
          <p className="mt-2 text-[12px] text-err" role="alert">
            {error}
          </p>
        ) : null}
        <div className="mt-4 flex justify-end gap-2">
          <button
            ref={cancelRef}
            type="button"
            onClick={onCancel}
            className="h-8 rounded-md border border-border-strong px-3 phone:h-[44px] text-[12.5px] text-fg hover:bg-raised"
          >
            Cancel
          </button>
          <button
            type="button"
            onClick={onConfirm}
            disabled={busy}
            data-testid="confirm-action"
            className={cx(
              "h-8 rounded-md px-3 text-[12.5px] font-semibold disabled:opacity-50 phone:h-[44px]",
              danger ? "bg-err text-white hover:brightness-110" : "bg-accent text-accent-fg hover:brightness-110",
            )}
          >
            {busy ? "Working…" : confirmLabel}
          </button>
        </div>
      </div>
    </div>
  );
}
