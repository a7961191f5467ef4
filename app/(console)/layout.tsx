import type { ReactNode } from "react";
import { Providers } from "@/components/providers";
import { AttentionManager } from "@/components/shell/attention";
import { CommandPalette } from "@/components/shell/command-palette";
import { ShortcutsHelp } from "@/components/shell/shortcuts-help";
import { Shell } from "@/components/shell/shell";
import { Sidebar } from "@/components/shell/sidebar";
import { StatusAnnouncer } from "@/components/shell/status-announcer";

export default function ConsoleLayout({ children }: { children: ReactNode }) {
  return (
    <Providers>
      <AttentionManager />
      <StatusAnnouncer />
      <Shell sidebar={<Sidebar />}>{children}</Shell>
      <CommandPalette />
      <ShortcutsHelp />
    </Providers>
  );
}
