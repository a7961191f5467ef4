"use client";
import { lazy, Suspense, useState } from "react";
import { cx } from "@/components/ui/cx";
import { IconLink } from "@/components/ui/icons";
import type { ShareDialogProps } from "./share-dialog";

// The dialog (redaction preview, options, the link) loads when it is first opened.
const ShareDialog = lazy(() => import("./share-dialog").then((m) => ({ default: m.ShareDialog })));

/** The header's Share button; opens the dialog. */
export function ShareButton({
  backendId,
  sessionId,
  title,
  messages,
  disabled,
  open: openProp,
  onOpenChange,
  className,
}: Omit<ShareDialogProps, "onClose"> & {
  disabled?: boolean;
  open?: boolean;
  onOpenChange?(open: boolean): void;
  className?: string;
}) {
  const [inner, setInner] = useState(false);
  const open = openProp ?? inner;
  const set = (v: boolean) => {
    if (openProp === undefined) setInner(v);
    onOpenChange?.(v);
  };
  return (
    <>
      <button
        type="button"
        onClick={() => set(true)}
        disabled={disabled}
        data-testid="share-button"
        title="Share a read-only link to this session"
        className={cx(
          "inline-flex h-7 items-center gap-1.5 rounded-md border border-border px-2.5 text-[12px] font-medium text-muted hover:bg-raised hover:text-fg disabled:opacity-40",
          className,
        )}
      >
        <IconLink size={13} /> Share
      </button>
      {open && (
        <Suspense fallback={null}>
          <ShareDialog
            backendId={backendId}
            sessionId={sessionId}
            title={title}
            messages={messages}
            onClose={() => set(false)}
          />
        </Suspense>
      )}
    </>
  );
}
