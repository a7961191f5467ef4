"use client";
/** The share dialog once the link is made: the link, shown once, and where to revoke it. */
import Link from "next/link";
import type { CreatedShare } from "@/lib/api";
import { CopyButton } from "@/components/ui/copy-button";
import { IconExternal } from "@/components/ui/icons";
import { absoluteTime } from "./share-format";

export function ShareResult({ created, url, onClose }: { created: CreatedShare; url: string; onClose(): void }) {
  return (
    <div className="flex flex-col gap-3 p-4" data-testid="share-result">
      <p className="text-[13px] text-fg">Anyone with this link can read the session, read-only.</p>
      <div className="flex items-center gap-1.5 rounded-md border border-border-strong bg-sunken pl-2.5 pr-1">
        <input
          readOnly
          value={url}
          data-testid="share-url"
          onFocus={(e) => e.currentTarget.select()}
          className="h-8 min-w-0 flex-1 bg-transparent font-mono text-[12px] text-fg outline-none"
        />
        <CopyButton text={url} label="Copy link" className="size-7" />
        <a
          href={url}
          target="_blank"
          rel="noopener noreferrer"
          className="grid size-7 place-items-center rounded text-faint hover:bg-raised hover:text-fg"
          title="Open"
          aria-label="Open the shared page"
        >
          <IconExternal size={13} />
        </a>
      </div>
      <p className="text-[11.5px] leading-[17px] text-faint">
        Copy it now: the link is shown only once (only a hash of it is kept).{" "}
        {created.expiresAt ? `It expires ${absoluteTime(created.expiresAt)}.` : "It never expires."} Revoke it any time
        in{" "}
        <Link
          href="/settings/shares"
          className="text-muted underline underline-offset-2 hover:text-fg"
          onClick={onClose}
        >
          Settings → Shares
        </Link>
        .
      </p>
      <div className="flex justify-end">
        <button
          type="button"
          onClick={onClose}
          className="h-8 rounded-md bg-accent px-3 text-[12.5px] font-medium text-accent-fg hover:opacity-90"
          data-testid="share-done"
        >
          Done
        </button>
      </div>
    </div>
  );
}
