"use client";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useEffect, useState, type ReactNode } from "react";
import { GlobalStore } from "@/lib/client/global-store";
import { GlobalStoreContext } from "@/lib/hooks/use-global-events";

export function Providers({ children }: { children: ReactNode }) {
  const [queryClient] = useState(
    () => new QueryClient({ defaultOptions: { queries: { staleTime: 5_000, refetchOnWindowFocus: true, retry: 1 } } }),
  );
  const [globalStore] = useState(() => new GlobalStore());
  useEffect(() => {
    globalStore.start();
    return () => globalStore.stop();
  }, [globalStore]);
  return (
    <QueryClientProvider client={queryClient}>
      <GlobalStoreContext.Provider value={globalStore}>{children}</GlobalStoreContext.Provider>
    </QueryClientProvider>
  );
}
