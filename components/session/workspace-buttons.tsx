"use client";
import type { PanelTab } from "../review/panel-tab";
import { IconCommit, IconFiles, IconTerminal } from "../ui/icons";
import { MenuItem } from "../ui/popover";

const BUTTONS: { tab: PanelTab; label: string; title: string; Icon: typeof IconCommit }[] = [
  {
    tab: "git",
    label: "Git",
    title: "Git: the session directory's changes, commit, push, merge",
    Icon: IconCommit,
  },
  { tab: "files", label: "Files", title: "Browse the session directory's files", Icon: IconFiles },
  {
    tab: "terminal",
    label: "Terminal",
    title: "A terminal in the session's directory",
    Icon: IconTerminal,
  },
];

/** The header's Git, Files and Terminal buttons (a session with a directory): each opens its review-panel tab. */
export function WorkspaceButtons({
  panel,
  onPanel,
}: {
  panel: PanelTab | null | undefined;
  onPanel(tab: PanelTab): void;
}) {
  return (
    <>
      {BUTTONS.map((b) => (
        <button
          key={b.tab}
          type="button"
          onClick={() => onPanel(b.tab)}
          aria-pressed={panel === b.tab}
          data-testid={`open-${b.tab}`}
          title={b.title}
          aria-label={b.label}
          className="inline-flex h-7 phone:hidden items-center gap-1.5 rounded-md px-2 text-[12px] text-muted hover:bg-raised hover:text-fg aria-pressed:bg-raised aria-pressed:text-fg"
        >
          <b.Icon size={14} />
        </button>
      ))}
    </>
  );
}

/** The same, as session-menu items (on a phone, where the header has no room for the buttons). */
export function WorkspaceMenuItems({ onPanel, close }: { onPanel(tab: PanelTab): void; close(): void }) {
  return (
    <>
      {BUTTONS.map((b) => (
        <MenuItem
          key={b.tab}
          icon={<b.Icon size={13} />}
          testId={`menu-${b.tab}`}
          className="wide:hidden"
          onSelect={() => {
            close();
            onPanel(b.tab);
          }}
        >
          {b.label}
        </MenuItem>
      ))}
    </>
  );
}
