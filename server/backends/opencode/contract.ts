import { z } from "zod";
import { isRedirect, readText } from "../shared/bounded-body";
import { MAX_DOC_BYTES, MAX_HEALTH_BYTES, redirectError } from "./timed-fetch";

/**
 * Which of OpenCode's two server contracts the adapter speaks (docs/backends/opencode.md):
 * - `v1`: the routes of OpenCode 1.x (`/session/…`, `/global/event`, `/permission/…`), through `@opencode-ai/sdk`;
 * - `api`: the `/api/*` contract, the only one an OpenCode 2 server answers (1.18 serves both).
 */
export const OpencodeContract = z.enum(["v1", "api"]);
export type OpencodeContract = z.infer<typeof OpencodeContract>;
/** The backend's `contract` setting: `auto` (the default) detects; `v1` or `api` forces one. */
export const ContractSetting = z.enum(["auto", "v1", "api"]);
export type ContractSetting = z.infer<typeof ContractSetting>;

/** The routes the `/api` adapter cannot do without. */
const REQUIRED_API_PATHS = ["/api/session", "/api/event", "/api/session/{sessionID}/prompt"];

const OpenApiDoc = z.object({ paths: z.record(z.string(), z.unknown()) });

/** Whether an OpenAPI document (`GET /doc`) offers the `/api` contract. Malformed documents offer nothing. */
export function docOffersApi(doc: unknown): boolean {
  const parsed = OpenApiDoc.safeParse(doc);
  return parsed.success && REQUIRED_API_PATHS.every((p) => p in parsed.data.paths);
}

/**
 * Each probe answers what the server said; a probe that gets no answer (refused, timed out) throws,
 * and detection fails as a whole, to be tried again: a server that is slow to answer is no proof
 * of a contract.
 */
export interface ContractProbe {
  /** `GET /doc` as JSON, or undefined when the server has none (404, not JSON). */
  doc(): Promise<unknown>;
  /** Whether `GET /api/health` answers 200: the fallback when a server publishes no document. */
  apiHealth(): Promise<boolean>;
  /** The version the V1 health route (`GET /global/health`) reports, or undefined when it does not answer. */
  v1Version(): Promise<string | undefined>;
}

/**
 * The contract to speak: a forced setting wins; otherwise `/api` when the server offers it (its
 * OpenAPI document lists the routes, or, without a document, `/api/health` answers), else V1.
 * One exception: a 1.x server that offers both (1.18 serves `/api` beside its V1 routes) keeps
 * V1, which is complete there (fork, rename, delete, per-turn patches) and honours
 * `OPENCODE_CONFIG_CONTENT`; `contract: "api"` speaks `/api` to it anyway.
 */
export async function detectContract(setting: ContractSetting, probe: ContractProbe): Promise<OpencodeContract> {
  if (setting !== "auto") return setting;
  const doc = await probe.doc();
  const offered = doc !== undefined ? docOffersApi(doc) : await probe.apiHealth();
  if (!offered) return "v1";
  const v1 = await probe.v1Version();
  return v1 !== undefined && /^1\./.test(v1) ? "v1" : "api";
}

/**
 * The probe over HTTP (30 s per request: a server between bind and ready hangs). A redirect is
 * refused, and the answers are read within their bounds (./timed-fetch.ts): a hostile server's
 * endless `/doc` costs the console at most `MAX_DOC_BYTES`.
 */
export function httpContractProbe(
  baseUrl: string,
  headers: Record<string, string>,
  fetchImpl: typeof fetch = fetch,
): ContractProbe {
  const get = async (path: string) => {
    let res: Response;
    try {
      res = await fetchImpl(`${baseUrl}${path}`, { headers, redirect: "manual", signal: AbortSignal.timeout(30_000) });
    } catch (err) {
      // undici says "fetch failed" and keeps the reason in `cause`.
      const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : "";
      throw new Error(`GET ${path}: ${err instanceof Error ? err.message : String(err)}${cause}`);
    }
    if (isRedirect(res)) {
      await res.body?.cancel().catch(() => undefined);
      throw redirectError(res.status, `${baseUrl}${path}`);
    }
    return res;
  };
  const json = async (res: Response, max: number, what: string): Promise<unknown> =>
    JSON.parse(await readText(res, max, what)) as unknown;
  return {
    async doc() {
      const res = await get("/doc");
      if (res.status >= 500) throw new Error(`GET /doc answered ${res.status}`);
      if (!res.ok || !(res.headers.get("content-type") ?? "").includes("json")) {
        await res.body?.cancel();
        return undefined;
      }
      return await json(res, MAX_DOC_BYTES, "OpenCode's OpenAPI document (/doc)");
    },
    async apiHealth() {
      const res = await get("/api/health");
      await res.body?.cancel();
      return res.ok;
    },
    async v1Version() {
      const res = await get("/global/health");
      if (!res.ok) {
        await res.body?.cancel();
        return undefined;
      }
      const body = await json(res, MAX_HEALTH_BYTES, "OpenCode's /global/health").catch(() => undefined);
      const parsed = z.object({ version: z.string() }).safeParse(body);
      return parsed.success ? parsed.data.version : "";
    },
  };
}

/** How the contract reads in the backend's details. */
export function contractLabel(contract: OpencodeContract, setting: ContractSetting): string {
  const name = contract === "api" ? "/api (OpenCode 2)" : "V1 routes";
  return setting === "auto" ? `${name}, detected` : `${name}, set in the config`;
}
