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

/**
 * Which generation of the `/api/event` types a server speaks (docs/backends/opencode.md, "Two
 * generations of /api"):
 * - `1.18`: the names of opencode-ai 1.18 (`session.next.step.started`, `session.next.prompted`, a
 *   `timestamp` in each frame's data; a step that ends without `tool-calls` ends the turn);
 * - `2`: upstream main's names (anomalyco/opencode, packages/sdk/js/src/v2/gen/types.gen.ts at
 *   ac9ce83255790c38fd9ec2d943ead6180ee7f591): `session.step.started`, `session.prompt.admitted` /
 *   `promoted`, the time in the envelope's `created`, `session.execution.settled {outcome}` as the
 *   turn's end, `form.*` requests, and the location taken from an `x-opencode-directory` header.
 */
export const ApiGeneration = z.enum(["1.18", "2"]);
export type ApiGeneration = z.infer<typeof ApiGeneration>;

/** The routes the `/api` adapter cannot do without. */
const REQUIRED_API_PATHS = ["/api/session", "/api/event", "/api/session/{sessionID}/prompt"];

const OpenApiDoc = z.object({ paths: z.record(z.string(), z.unknown()) });

/** Whether an OpenAPI document (`GET /doc`) offers the `/api` contract. Malformed documents offer nothing. */
export function docOffersApi(doc: unknown): boolean {
  const parsed = OpenApiDoc.safeParse(doc);
  return parsed.success && REQUIRED_API_PATHS.every((p) => p in parsed.data.paths);
}

const SchemaRef = z.object({ $ref: z.string() });
const EventSchema = z.object({
  properties: z.object({ type: z.object({ enum: z.array(z.string()).optional(), const: z.string().optional() }) }),
});
const Union = z.object({ anyOf: z.array(z.unknown()).optional(), oneOf: z.array(z.unknown()).optional() });

/**
 * The event types an OpenAPI document declares for `GET /api/event`: the members of the union its
 * `text/event-stream` answer refers to (`V2Event` on both generations), each named by its `type`'s
 * `enum` (or `const`). Empty when the document declares none (or is malformed).
 */
export function declaredApiEvents(doc: unknown): Set<string> {
  const out = new Set<string>();
  const d = z
    .object({
      paths: z.record(z.string(), z.unknown()),
      components: z.object({ schemas: z.record(z.string(), z.unknown()) }).optional(),
    })
    .safeParse(doc);
  if (!d.success) return out;
  const schemas = d.data.components?.schemas ?? {};
  const resolve = (raw: unknown, depth = 0): unknown => {
    const ref = SchemaRef.safeParse(raw);
    if (!ref.success || depth > 8) return raw;
    const name = /^#\/components\/schemas\/(.+)$/.exec(ref.data.$ref)?.[1];
    return name
      ? resolve(schemas[decodeURIComponent(name.replace(/~1/g, "/").replace(/~0/g, "~"))], depth + 1)
      : undefined;
  };
  const route = z
    .object({
      get: z.object({
        responses: z.object({
          "200": z.object({ content: z.object({ "text/event-stream": z.object({ schema: z.unknown() }) }) }),
        }),
      }),
    })
    .safeParse(d.data.paths["/api/event"]);
  if (!route.success) return out;
  const union = Union.safeParse(resolve(route.data.get.responses["200"].content["text/event-stream"].schema));
  if (!union.success) return out;
  for (const member of [...(union.data.anyOf ?? []), ...(union.data.oneOf ?? [])]) {
    const ev = EventSchema.safeParse(resolve(member));
    if (!ev.success) continue;
    const type = ev.data.properties.type;
    for (const t of [...(type.enum ?? []), ...(type.const ? [type.const] : [])]) out.add(t);
  }
  return out;
}

/**
 * The `/api/event` generation a server's document declares: `2` when it declares upstream main's
 * names (`session.execution.settled`, `session.step.started`), `1.18` when it declares
 * `session.next.step.started`, undefined when it declares neither (no document, or one that does
 * not describe its stream): the caller then speaks the pinned 1.18's.
 */
export function apiGenerationOf(doc: unknown): ApiGeneration | undefined {
  const events = declaredApiEvents(doc);
  if (events.has("session.execution.settled") || events.has("session.step.started")) return "2";
  if (events.has("session.next.step.started")) return "1.18";
  return undefined;
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
  return (await detectServer(setting, probe)).contract;
}

/**
 * The contract (as `detectContract` decides it) and, on `/api`, the generation of its event types,
 * read from the same `GET /doc` (asked for it when the contract is forced to `api`): chosen from
 * what the document declares, never by trying. Without a document that says, the pinned 1.18's.
 */
export async function detectServer(
  setting: ContractSetting,
  probe: ContractProbe,
): Promise<{ contract: OpencodeContract; generation?: ApiGeneration }> {
  if (setting === "v1") return { contract: "v1" };
  const doc = await probe.doc();
  const generation = (doc !== undefined ? apiGenerationOf(doc) : undefined) ?? "1.18";
  if (setting === "api") return { contract: "api", generation };
  const offered = doc !== undefined ? docOffersApi(doc) : await probe.apiHealth();
  if (!offered) return { contract: "v1" };
  const v1 = await probe.v1Version();
  return v1 !== undefined && /^1\./.test(v1) ? { contract: "v1" } : { contract: "api", generation };
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
export function contractLabel(
  contract: OpencodeContract,
  setting: ContractSetting,
  generation?: ApiGeneration,
): string {
  const name =
    contract === "api"
      ? generation === "2"
        ? "/api (OpenCode 2, upstream main's events)"
        : "/api (OpenCode 2)"
      : "V1 routes";
  return setting === "auto" ? `${name}, detected` : `${name}, set in the config`;
}
