import "server-only";
import { headers } from "next/headers";
import { cache } from "react";
import { loadSharedPage } from "@/server/shares/public";

/**
 * One resolution of the token per request, shared by the layout, the metadata and the page (one
 * lookup, one `touch`, and an unknown token counts once against the client's failure limit).
 */
export const loadShare = cache(async (token: string) => loadSharedPage(token, await headers()));
