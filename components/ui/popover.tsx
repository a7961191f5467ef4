"use client";
import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { cx } from "./cx";
import { IconX } from "./icons";
import { useFocusTrap } from "./use-focus-trap";

/**
 * A button that opens a floating panel below it. Closes on Escape, on a click outside, and when
 * `close` (passed to the children) is called. Controlled (`open`/`onOpenChange`) or not.
 */
export function Popover({
  label,
  title,
  children,
  align = "end",
  open: openProp,
  onOpenChange,
  className,
  buttonClassName,
  panelClassName,
  testId,
  panelTestId,
  disabled,
  sheet,
  returnFocus,
  buttonRef,
  ariaLabel,
}: {
  label: ReactNode;
  title?: string;
  children: (close: () => void) => ReactNode;
  align?: "start" | "end";
  open?: boolean;
  onOpenChange?: (open: boolean) => void;
  className?: string;
  buttonClassName?: string;
  panelClassName?: string;
  testId?: string;
  panelTestId?: string;
  disabled?: boolean;
  /** On a phone (≤ 768 px) the panel opens as a full-screen sheet with this title. */
  sheet?: string;
  /** Where the focus goes on close when the trigger is hidden (opened from another menu). */
  returnFocus?: React.RefObject<HTMLElement | null>;
  buttonRef?: React.Ref<HTMLButtonElement>;
  /** The button's accessible name when its content is not enough (it must contain the visible text). */
  ariaLabel?: string;
}) {
  const [inner, setInner] = useState(false);
  const open = openProp ?? inner;
  const set = (v: boolean) => {
    if (openProp === undefined) setInner(v);
    onOpenChange?.(v);
  };
  const setRef = useRef(set);
  setRef.current = set;
  const root = useRef<HTMLDivElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  const id = useId();
  // Tab stays inside the open panel, Escape closes it, the focus goes back to the button.
  useFocusTrap(panel, { active: open, onEscape: () => setRef.current(false), ...(returnFocus ? { returnFocus } : {}) });

  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (root.current && !root.current.contains(e.target as Node)) setRef.current(false);
    };
    document.addEventListener("mousedown", onDown);
    return () => document.removeEventListener("mousedown", onDown);
  }, [open]);

  return (
    <div ref={root} className={cx("relative", className)}>
      <button
        ref={buttonRef}
        type="button"
        title={title}
        aria-label={ariaLabel}
        aria-haspopup="dialog"
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        disabled={disabled}
        onClick={() => set(!open)}
        data-testid={testId}
        className={cx(
          "inline-flex h-7 items-center gap-1.5 rounded-md px-2 text-[12px] text-muted hover:bg-raised hover:text-fg disabled:opacity-40 aria-expanded:bg-raised aria-expanded:text-fg",
          buttonClassName,
        )}
      >
        {label}
      </button>
      {open ? (
        <div
          ref={panel}
          id={id}
          role="dialog"
          aria-label={sheet ?? title}
          data-testid={panelTestId}
          className={cx(
            "absolute top-full z-40 mt-1 min-w-[220px] rounded-lg border border-border-strong bg-panel p-1 shadow-xl shadow-black/20 outline-none",
            align === "end" ? "right-0" : "left-0",
            panelClassName,
            sheet &&
              "phone:fixed phone:inset-0 phone:z-[60] phone:mt-0 phone:flex phone:w-auto phone:max-w-none phone:flex-col phone:overflow-y-auto phone:rounded-none phone:border-0 phone:pb-[env(safe-area-inset-bottom)] phone:pt-[env(safe-area-inset-top)]",
          )}
        >
          {sheet ? (
            <div className="-mx-1 -mt-1 mb-1 flex h-12 shrink-0 items-center border-b border-border px-4 wide:hidden">
              <span className="text-[14px] font-semibold text-fg">{sheet}</span>
              <button
                type="button"
                onClick={() => set(false)}
                className="ml-auto grid size-10 place-items-center rounded text-faint hover:bg-raised hover:text-fg"
                aria-label="Close"
              >
                <IconX size={16} />
              </button>
            </div>
          ) : null}
          {children(() => set(false))}
        </div>
      ) : null}
    </div>
  );
}

/** A row of a menu: an action, disabled with its reason on hover when it cannot run. */
export function MenuItem({
  icon,
  children,
  onSelect,
  href,
  download,
  disabledReason,
  danger,
  testId,
  hint,
  className,
}: {
  icon?: ReactNode;
  children: ReactNode;
  onSelect?: () => void;
  href?: string;
  download?: boolean;
  disabledReason?: string;
  danger?: boolean;
  testId?: string;
  hint?: ReactNode;
  className?: string;
}) {
  const cls = cx(
    "flex h-8 w-full items-center gap-2 rounded-md px-2 text-left text-[12.5px] phone:h-[44px] phone:text-[14px]",
    className,
    disabledReason ? "cursor-not-allowed text-faint" : danger ? "text-err hover:bg-err/10" : "text-fg hover:bg-raised",
  );
  const body = (
    <>
      <span className="grid w-4 shrink-0 place-items-center text-muted">{icon}</span>
      <span className="min-w-0 flex-1 truncate">{children}</span>
      {hint ? <span className="shrink-0 text-[11px] text-faint">{hint}</span> : null}
    </>
  );
  if (href && !disabledReason) {
    return (
      <a href={href} download={download} className={cls} data-testid={testId} role="menuitem" onClick={onSelect}>
        {body}
      </a>
    );
  }
  return (
    <button
      type="button"
      role="menuitem"
      className={cls}
      data-testid={testId}
      aria-disabled={disabledReason ? true : undefined}
      title={disabledReason}
      onClick={() => {
        if (!disabledReason) onSelect?.();
      }}
    >
      {body}
    </button>
  );
}

export function MenuSeparator({ className }: { className?: string }) {
  return <div className={cx("my-1 h-px bg-border", className)} role="separator" />;
}
