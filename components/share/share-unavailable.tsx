import { IconBan } from "@/components/ui/icons";

/** Why a share link shows nothing (server-rendered, no client code). */
export function ShareUnavailable({ status, message }: { status: number; message: string }) {
  return (
    <div className="grid min-h-dvh place-items-center px-6" data-testid="share-unavailable" data-status={status}>
      <div className="max-w-sm text-center">
        <div className="mx-auto grid size-10 place-items-center rounded-full border border-border bg-panel text-faint">
          <IconBan size={18} />
        </div>
        <h1 className="mt-3 text-[15px] font-semibold text-fg">{status === 429 ? "Too many requests" : status === 503 ? "Temporarily unavailable" : "This share link is not available"}</h1>
        <p className="mt-1 text-[13px] text-muted">{message}</p>
        <p className="mt-4 text-[11.5px] text-faint">Switchboard · shared session</p>
      </div>
    </div>
  );
}
