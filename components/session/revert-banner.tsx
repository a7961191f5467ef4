"use client";
import { useState } from "react";
import { IconUndo } from "../ui/icons";

/** Under the timeline while a revert is pending: what the next prompt drops, and Unrevert. */
export function RevertBanner({
  count,
  onUnrevert,
  reason,
  deferred,
}: {
  count: number;
  onUnrevert(): Promise<void>;
  reason?: string;
  deferred?: boolean;
}) {
  const [working, setWorking] = useState(false);
  return (
    <div className="shrink-0 border-t border-warn/30 bg-warn/8 px-4 py-2" data-testid="revert-banner" role="status">
      <div className="mx-auto flex max-w-[880px] items-center gap-2.5 text-[12.5px]">
        <IconUndo size={14} className="shrink-0 text-warn" />
        <div className="min-w-0 flex-1">
          {deferred ? (
            <>
              <span className="font-medium text-fg">Reverting to before this message.</span>{" "}
              <span className="text-muted">
                The files and {count > 0 ? `${count} message${count === 1 ? "" : "s"}` : "the reverted messages"} are
                rewound when you send the next prompt.
              </span>
            </>
          ) : (
            <>
              <span className="font-medium text-fg">Files restored to before this message.</span>{" "}
              <span className="text-muted">
                {count > 0 ? `${count} message${count === 1 ? "" : "s"} ` : "The reverted messages "}
                will be dropped when you send the next prompt.
              </span>
            </>
          )}
        </div>
        <button
          type="button"
          data-testid="unrevert"
          disabled={working || Boolean(reason)}
          title={reason ?? "Bring the files and the messages back"}
          onClick={() => {
            setWorking(true);
            void onUnrevert().finally(() => setWorking(false));
          }}
          className="inline-flex h-7 shrink-0 items-center rounded-md border border-warn/40 px-2.5 text-[12px] font-medium text-warn hover:bg-warn/15 disabled:opacity-50"
        >
          {working ? "Restoring…" : "Unrevert"}
        </button>
      </div>
    </div>
  );
}
