"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { FileSearchResult } from "../api";
import { apiGet } from "../client/api-client";

const DEBOUNCE_MS = 120;
const LIMIT = 20;

/**
 * The session's files matching an `@` mention being typed (`GET …/files`), asked once the typing
 * pauses. `filesUrl` undefined (no mentions on this backend) or `query` undefined (no `@word` at the
 * caret): nothing is asked. While a new query is asked, the previous list stays.
 */
export function useFileMentions(
  filesUrl: string | undefined,
  query: string | undefined,
): { items: string[]; loading: boolean; error?: string } {
  const [debounced, setDebounced] = useState(query);
  useEffect(() => {
    if (query === undefined) {
      setDebounced(undefined);
      return;
    }
    const t = setTimeout(() => setDebounced(query), DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [query]);
  const enabled = Boolean(filesUrl) && query !== undefined && debounced !== undefined;
  const r = useQuery({
    queryKey: ["files", filesUrl, debounced],
    queryFn: ({ signal }) =>
      apiGet<FileSearchResult>(
        `${filesUrl}${filesUrl?.includes("?") ? "&" : "?"}${new URLSearchParams({ q: debounced ?? "", limit: String(LIMIT) })}`,
        {
          signal,
        },
      ),
    enabled,
    staleTime: 10_000,
    retry: false,
    placeholderData: keepPreviousData,
  });
  if (!filesUrl || query === undefined) return { items: [], loading: false };
  return {
    items: r.data?.items ?? [],
    loading: r.isFetching || debounced !== query,
    ...(r.error ? { error: r.error instanceof Error ? r.error.message : "Could not list the files" } : {}),
  };
}
