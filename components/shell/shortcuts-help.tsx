"use client";
import { Modal } from "../ui/modal";
import { setOverlay, useOverlay } from "./commands";

/** The console's keyboard shortcuts; README.md's keyboard paragraph lists the same. */
export const SHORTCUTS: { group: string; keys: { keys: string[]; what: string }[] }[] = [
  {
    group: "Anywhere",
    keys: [
      { keys: ["Ctrl/⌘", "K"], what: "Command palette: find a session or a message of any backend, run an action" },
      { keys: ["Ctrl/⌘", "Shift", "F"], what: "Search every session's messages" },
      { keys: ["/"], what: "Search the sidebar's sessions" },
      { keys: ["Alt", "N"], what: "New session" },
      { keys: ["?"], what: "This help" },
      { keys: ["Esc"], what: "Close a dialog, sheet, menu or the review panel" },
      { keys: ["Tab"], what: "Move between controls (dialogs keep the focus inside)" },
    ],
  },
  {
    group: "Prompt",
    keys: [
      { keys: ["Enter"], what: "Send" },
      { keys: ["Shift", "Enter"], what: "New line" },
      { keys: ["Esc"], what: "Stop the running turn" },
      { keys: ["/"], what: "At the start: the agent's slash commands (arrows pick, Tab or Enter completes)" },
    ],
  },
  {
    group: "Needs you",
    keys: [
      { keys: ["1"], what: "Permission: allow once" },
      { keys: ["2"], what: "Permission: always allow" },
      { keys: ["3"], what: "Permission: reject" },
      { keys: ["4"], what: "Permission: reject with feedback" },
      { keys: ["1", "–", "9"], what: "Question: pick an option" },
      { keys: ["Enter"], what: "Question: submit" },
    ],
  },
];

export function ShortcutsHelp() {
  const overlay = useOverlay();
  if (overlay !== "help") return null;
  return (
    <Modal
      title="Keyboard shortcuts"
      onClose={() => setOverlay(null)}
      testId="shortcuts-help"
      className="max-w-[520px]"
    >
      <div className="min-h-0 flex-1 overflow-y-auto px-4 pb-4">
        {SHORTCUTS.map((g) => (
          <section key={g.group} aria-label={g.group}>
            <h3 className="pb-1 pt-4 text-[11px] font-semibold uppercase tracking-wide text-faint">{g.group}</h3>
            <dl className="divide-y divide-border">
              {g.keys.map((k) => (
                <div
                  key={`${g.group}:${k.keys.join("+")}:${k.what}`}
                  className="flex items-center gap-3 py-1.5 text-[12.5px]"
                >
                  <dt className="flex w-[104px] shrink-0 items-center gap-1">
                    {k.keys.map((key, i) =>
                      key === "–" ? (
                        <span key={i} className="text-faint">
                          –
                        </span>
                      ) : (
                        <kbd
                          key={i}
                          className="rounded border border-border-strong bg-raised px-1.5 font-sans text-[11px] leading-5 text-fg"
                        >
                          {key}
                        </kbd>
                      ),
                    )}
                  </dt>
                  <dd className="min-w-0 flex-1 text-muted">{k.what}</dd>
                </div>
              ))}
            </dl>
          </section>
        ))}
        <p className="pt-4 text-[11.5px] text-faint">Double-click a session&apos;s title to rename it.</p>
      </div>
    </Modal>
  );
}
