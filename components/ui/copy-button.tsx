"use client";
import { useEffect, useState } from "react";
import { IconCheck, IconCopy } from "./icons";
import { cx } from "./cx";

/** Copies `text` to the clipboard; shows a check for a moment afterwards. */
export function CopyButton({
  text,
  className,
  label = "Copy",
}: {
  text: string | (() => string);
  className?: string;
  label?: string;
}) {
  const [done, setDone] = useState(false);
  useEffect(() => {
    if (!done) return;
    const t = setTimeout(() => setDone(false), 1200);
    return () => clearTimeout(t);
  }, [done]);
  return (
    <button
      type="button"
      title={done ? "Copied" : label}
      aria-label={label}
      onClick={(e) => {
        e.stopPropagation();
        const value = typeof text === "function" ? text() : text;
        void navigator.clipboard?.writeText(value).then(
          () => setDone(true),
          () => undefined,
        );
      }}
      className={cx(
        "inline-flex size-6 items-center justify-center rounded text-faint hover:bg-raised hover:text-fg",
        className,
      )}
    >
      {done ? <IconCheck size={13} className="text-ok" /> : <IconCopy size={13} />}
    </button>
  );
}
