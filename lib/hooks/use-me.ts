"use client";
import { useQuery } from "@tanstack/react-query";
import { apiGet } from "@/lib/client/api-client";
import { type Me, type Need, whyNot } from "@/lib/roles";

/** Who is signed in (`GET /api/me`), asked once per page load. */
export function useMe(): Me | undefined {
  const q = useQuery({ queryKey: ["me"], queryFn: () => apiGet<Me>("/api/me"), staleTime: Number.POSITIVE_INFINITY });
  return q.data;
}

/**
 * Why the signed-in person's role may not do what `need` asks (the tooltip of a disabled control), or
 * undefined when it may — also while `/api/me` has not answered: the server decides either way.
 */
export function useRoleReason(need: Need): string | undefined {
  const me = useMe();
  return me ? whyNot(me.role, need) : undefined;
}
