import type { ReactNode } from "react";
import { Providers } from "@/components/providers";
import { AttentionManager } from "@/components/shell/attention";
import { Sidebar } from "@/components/shell/sidebar";

export default function ConsoleLayout({ children }: { children: ReactNode }) {
  return (
    <Providers>
      <AttentionManager />
      <div className="flex h-dvh overflow-hidden">
        <Sidebar />
        <main className="flex min-w-0 flex-1 flex-col">{children}</main>
      </div>
    </Providers>
  );
}
