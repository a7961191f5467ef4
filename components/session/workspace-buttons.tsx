"use client";
import type { PanelTab } from "../review/panel-tab";
import { IconCommit, IconTerminal } from "../ui/icons";

/** The header's Git and Terminal buttons (a session with a directory): each opens its review-panel tab. */
export function WorkspaceButtons({
  panel,
  onPanel,
}: {
  panel: PanelTab | null | undefined;
  onPanel(tab: PanelTab): void;
}) {
  return (
    <>
      <button
        type="button"
        onClick={() => onPanel("git")}
        aria-pressed={panel === "git"}
        data-testid="open-git"
        title="Git: the session directory's changes, commit, push, merge"
        aria-label="Git"
        className="inline-flex h-7 phone:hidden items-center gap-1.5 rounded-md px-2 text-[12px] text-muted hover:bg-raised hover:text-fg aria-pressed:bg-raised aria-pressed:text-fg"
      >
        <IconCommit size={14} />
      </button>
      <button
        type="button"
        onClick={() => onPanel("terminal")}
        aria-pressed={panel === "terminal"}
        data-testid="open-terminal"
        title="A terminal in the session's directory"
        aria-label="Terminal"
        className="inline-flex h-7 phone:hidden items-center gap-1.5 rounded-md px-2 text-[12px] text-muted hover:bg-raised hover:text-fg aria-pressed:bg-raised aria-pressed:text-fg"
      >
        <IconTerminal size={14} />
      </button>
    </>
  );
}
