"use client";
import { useEffect, useRef, useState } from "react";

/** The session's title as a field: Enter or leaving it saves, Escape cancels. */
export function TitleEditor({
  title,
  onSave,
  onCancel,
}: {
  title: string;
  onSave(t: string): Promise<void>;
  onCancel(): void;
}) {
  const [value, setValue] = useState(title);
  const [saving, setSaving] = useState(false);
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    ref.current?.focus();
    ref.current?.select();
  }, []);
  const save = async () => {
    const t = value.trim();
    if (!t || t === title) return onCancel();
    setSaving(true);
    try {
      await onSave(t);
    } finally {
      setSaving(false);
    }
  };
  return (
    <input
      ref={ref}
      value={value}
      disabled={saving}
      onChange={(e) => setValue(e.target.value)}
      onKeyDown={(e) => {
        if (e.key === "Enter") void save();
        if (e.key === "Escape") onCancel();
      }}
      onBlur={() => void save()}
      maxLength={300}
      aria-label="Session title"
      data-testid="title-input"
      className="h-7 min-w-0 flex-1 rounded-md border border-accent bg-sunken px-2 text-[14px] font-semibold text-fg outline-none"
    />
  );
}
