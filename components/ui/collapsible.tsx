"use client";
import { useId, useState, type ReactNode } from "react";
import { IconChevronRight } from "./icons";
import { cx } from "./cx";

/**
 * A disclosure: a full-width trigger row and a body rendered only while open (cheap when closed).
 * Controlled (`open` + `onOpenChange`) or uncontrolled (`defaultOpen`).
 */
export function Collapsible({
  trigger,
  children,
  open: openProp,
  defaultOpen = false,
  onOpenChange,
  className,
  triggerClassName,
  bodyClassName,
  chevron = "left",
}: {
  trigger: ReactNode;
  children: ReactNode;
  open?: boolean;
  defaultOpen?: boolean;
  onOpenChange?: (open: boolean) => void;
  className?: string;
  triggerClassName?: string;
  bodyClassName?: string;
  chevron?: "left" | "right" | "none";
}) {
  const [inner, setInner] = useState(defaultOpen);
  const open = openProp ?? inner;
  const id = useId();
  const toggle = () => {
    const next = !open;
    if (openProp === undefined) setInner(next);
    onOpenChange?.(next);
  };
  const icon = (
    <IconChevronRight
      size={12}
      className={cx("shrink-0 text-faint transition-transform duration-150", open && "rotate-90")}
    />
  );
  return (
    <div className={className}>
      <button
        type="button"
        aria-expanded={open}
        aria-controls={id}
        onClick={toggle}
        className={cx("flex w-full min-w-0 items-center gap-1.5 text-left", triggerClassName)}
      >
        {chevron === "left" && icon}
        {trigger}
        {chevron === "right" && icon}
      </button>
      {open ? (
        <div id={id} className={bodyClassName}>
          {children}
        </div>
      ) : null}
    </div>
  );
}
