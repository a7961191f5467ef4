import "server-only";
import type { BackendDefinition } from "@/lib/api";
import { registerSecret } from "../redaction/redact";
import { isSecretName, looksRandom } from "../redaction/redactor";
import { SecretBox, SecretKeyError } from "../auth/secret-box";
import { describeError } from "../errors";
import { log } from "../log";
import type { LiveStore, StoredBackend } from "../store/store";

/**
 * The secrets the console keeps in its store (docs/security.md, "Secrets at rest"):
 *
 * - settings rows (`meta`) that hold keys entered in Settings — an ACP agent's credentials
 *   (`acp-credentials:<backend>`, server/backends/acp/credentials.ts) and the API keys given to Opal
 *   (`opal-keys:<backend>`, server/backends/opal/api-keys.ts) — sealed whole;
 * - the secret fields of stored backend definitions — an OpenCode password, an A2A token, a Copilot
 *   provider key, every `env` value — sealed one by one, so the definition keeps its shape.
 *
 * `sealedStore` seals them on the way in and opens them on the way out, so every other part of the
 * console sees plaintext as before; `startStoredSecrets` seals what was stored in clear (or under a
 * previous key) at start and registers every stored key for redaction — then again whenever another
 * replica writes a setting (the store's `onChange`), so each replica's redactor knows a key entered
 * on any of them.
 */

/** Settings rows that hold secrets: a JSON object of name → value. */
const SECRET_META = [
  // An env_var method's values: those under a secret-looking name, or random-looking, are secrets.
  { prefix: "acp-credentials:", secret: (name: string, value: string) => isSecretName(name) || looksRandom(value) },
  // Every value is an API key.
  { prefix: "opal-keys:", secret: () => true },
] as const;

export const isSecretMetaKey = (key: string) => SECRET_META.some((m) => key.startsWith(m.prefix));

/** The secret values of a settings row's plaintext (a malformed row holds none). */
export function metaSecrets(key: string, plain: string): string[] {
  const kind = SECRET_META.find((m) => key.startsWith(m.prefix));
  if (!kind) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(plain);
  } catch {
    return [];
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return [];
  return Object.entries(parsed as Record<string, unknown>).flatMap(([k, v]) =>
    typeof v === "string" && v && kind.secret(k, v) ? [v] : [],
  );
}

/** The schema's limits on the sealed fields (lib/api.ts): a sealed value must still fit. */
const LIMITS = { password: 1000, token: 4000, apiKey: 4000 } as const;

/** The definition with `f` applied to each secret field (`limit`: the schema's, when it has one). */
function mapDefinition(def: BackendDefinition, f: (value: string, limit?: number) => string): BackendDefinition {
  const c = def.config as Record<string, unknown>;
  const config: Record<string, unknown> = { ...c };
  for (const field of ["password", "token"] as const)
    if (typeof c[field] === "string" && c[field]) config[field] = f(c[field], LIMITS[field]);
  const provider = c.provider as Record<string, unknown> | undefined;
  if (provider && typeof provider.apiKey === "string" && provider.apiKey)
    config.provider = { ...provider, apiKey: f(provider.apiKey, LIMITS.apiKey) };
  if (c.env && typeof c.env === "object")
    config.env = Object.fromEntries(
      Object.entries(c.env as Record<string, unknown>).map(([k, v]) => [k, typeof v === "string" && v ? f(v) : v]),
    );
  return { ...def, config } as BackendDefinition;
}

const warnedTooLong = new Set<string>();

/** Seals a definition's secret fields; one whose envelope would exceed the schema's limit stays as it is (logged). */
export function sealDefinition(def: BackendDefinition, box: SecretBox, backendId = "?"): BackendDefinition {
  return mapDefinition(def, (v, limit) => {
    if (SecretBox.isSealed(v)) return v;
    const sealed = box.seal(v);
    if (limit === undefined || sealed.length <= limit) return sealed;
    if (!warnedTooLong.has(backendId)) {
      warnedTooLong.add(backendId);
      log.warn("a backend secret is too long to be stored encrypted; it is stored in clear", { backend: backendId });
    }
    return v;
  });
}

export function openDefinition(def: BackendDefinition, open: (v: string) => string): BackendDefinition {
  return mapDefinition(def, open);
}

/** Whether any secret field of a stored definition is in clear or sealed under a previous key (and would fit sealed). */
function definitionNeedsReseal(def: BackendDefinition, box: SecretBox): boolean {
  let needs = false;
  mapDefinition(def, (v, limit) => {
    if (box.needsReseal(v) && (SecretBox.isSealed(v) || limit === undefined || box.seal(v).length <= limit))
      needs = true;
    return v;
  });
  return needs;
}

/** `box.open` with a cache: the same stored values are opened on every listing. */
function opener(box: SecretBox): (v: string) => string {
  const cache = new Map<string, string>();
  return (v) => {
    if (!SecretBox.isSealed(v)) return v;
    const hit = cache.get(v);
    if (hit !== undefined) return hit;
    const plain = box.open(v);
    if (cache.size > 1000) cache.clear();
    cache.set(v, plain);
    return plain;
  };
}

const reported = new Set<string>();
/** A value another replica sealed under a key this one does not hold: said once, never thrown at a caller. */
function unreadable(what: string, err: unknown): void {
  const msg = describeError(err);
  if (reported.has(`${what}\u0000${msg}`)) return;
  reported.add(`${what}\u0000${msg}`);
  log.error("cannot decrypt a stored secret", { what, error: msg });
}

/**
 * The store with its secrets sealed at rest (see above). `register` gets every secret read or
 * written (default: the redactor's registry, server/redaction/redact.ts).
 */
export function sealedStore(
  store: LiveStore,
  box: SecretBox,
  register: (s: string) => void = registerSecret,
): LiveStore {
  const open = opener(box);
  const openMeta = (key: string, value: string): string | undefined => {
    try {
      const plain = open(value);
      for (const s of metaSecrets(key, plain)) register(s);
      return plain;
    } catch (err) {
      unreadable(key, err);
      return undefined;
    }
  };
  const wrapped: Partial<LiveStore> = {
    getMeta(key) {
      const v = store.getMeta(key);
      return v === undefined || !isSecretMetaKey(key) ? v : openMeta(key, v);
    },
    setMeta(key, value) {
      if (!isSecretMetaKey(key)) return store.setMeta(key, value);
      for (const s of metaSecrets(key, value)) register(s);
      store.setMeta(key, box.seal(value));
    },
    listMeta(prefix) {
      return store.listMeta(prefix).flatMap(([k, v]): [string, string][] => {
        const plain = isSecretMetaKey(k) ? openMeta(k, v) : v;
        return plain === undefined ? [] : [[k, plain]];
      });
    },
    putBackend(b) {
      store.putBackend({ ...b, def: sealDefinition(b.def, box, b.id) });
    },
    listBackends() {
      return store.listBackends().flatMap((b): StoredBackend[] => {
        try {
          return [{ ...b, def: openDefinition(b.def, open) }];
        } catch (err) {
          unreadable(`backend ${b.id}`, err);
          return [];
        }
      });
    },
  };
  return new Proxy(store, {
    get(target, prop) {
      if (typeof prop === "string" && Object.hasOwn(wrapped, prop)) return wrapped[prop as keyof LiveStore];
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** Registers the secrets of every stored settings row this replica can open. */
function registerStored(store: LiveStore, box: SecretBox, register: (s: string) => void): void {
  for (const { prefix } of SECRET_META)
    for (const [key, value] of store.listMeta(prefix)) {
      try {
        for (const s of metaSecrets(key, box.open(value))) register(s);
      } catch (err) {
        unreadable(key, err);
      }
    }
}

/**
 * At start, on the store as it is (`raw`, not the sealed view): seals what is in clear (a store from
 * before encryption) or under a previous key (`SWITCHBOARD_SECRET_KEY_PREVIOUS`) under the current
 * key, registers every stored key for redaction, and follows other replicas' writes to the settings
 * to register theirs. A value sealed under a key this console does not hold stops the start with a
 * `SecretKeyError` naming the variable. Returns the function that stops following.
 */
export async function startStoredSecrets(
  raw: LiveStore,
  box: SecretBox,
  register: (s: string) => void = registerSecret,
): Promise<() => void> {
  let plaintext = 0;
  let rotated = 0;
  const count = (v: string) => {
    if (SecretBox.isSealed(v)) rotated++;
    else plaintext++;
  };
  for (const { prefix } of SECRET_META)
    for (const [key, value] of raw.listMeta(prefix)) {
      const plain = box.open(value);
      for (const s of metaSecrets(key, plain)) register(s);
      if (box.needsReseal(value)) {
        count(value);
        raw.setMeta(key, box.seal(plain));
      }
    }
  for (const b of raw.listBackends()) {
    if (!definitionNeedsReseal(b.def, box)) continue;
    const plain = openDefinition(b.def, (v) => box.open(v));
    mapDefinition(b.def, (v) => {
      if (box.needsReseal(v)) count(v);
      return v;
    });
    raw.putBackend({ ...b, def: sealDefinition(plain, box, b.id) });
  }
  await raw.flushed?.();
  if (plaintext) log.info("encrypted the secrets stored in clear (docs/security.md, secrets at rest)", { plaintext });
  if (rotated)
    log.info("encrypted the stored secrets again under the current key (SWITCHBOARD_SECRET_KEY)", {
      rotated,
      keyId: box.current.id,
    });
  const stop = raw.onChange?.((table) => {
    if (table === "meta") registerStored(raw, box, register);
  });
  return stop ?? (() => {});
}

export { SecretKeyError };
