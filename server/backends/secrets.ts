import "server-only";
import type { BackendDefinition } from "@/lib/api";
import { registerSecret } from "../redaction/redact";
import { isSecretName, looksRandom } from "../redaction/redactor";
import { passThrough, withholdFromAgents } from "../processes/agent-env";

/** A variable's value is a secret when its name says so or it looks like a random token. */
function secretVariables(env: Record<string, string> | undefined): string[] {
  return Object.entries(env ?? {}).flatMap(([k, v]) => (isSecretName(k) || looksRandom(v) ? [v] : []));
}

/**
 * The secrets a backend definition holds: an OpenCode password, an A2A bearer token, a Copilot
 * provider key and the values of its own secret variables (`held`), and the secret values its
 * `passEnv` passes from the console's environment (`passed`). Read from the config's shape,
 * whatever the kind.
 */
export function definitionSecrets(def: BackendDefinition): { held: string[]; passed: string[] } {
  const c = def.config as {
    password?: string;
    token?: string;
    provider?: { apiKey?: string };
    env?: Record<string, string>;
    passEnv?: string[];
  };
  const present = (xs: (string | undefined)[]) => xs.filter((s): s is string => typeof s === "string" && s.length > 0);
  return {
    held: present([c.password, c.token, c.provider?.apiKey, ...secretVariables(c.env)]),
    passed: present(secretVariables(passThrough(c.passEnv))),
  };
}

/**
 * Registers a backend's secrets: all are removed by exact value from error messages, shares and
 * exports (server/redaction/redact.ts); those it holds itself are never inherited by another agent from
 * the console's environment (server/processes/agent-env.ts). What it passes from the console's
 * environment is the user's to pass to other agents too.
 */
export function registerBackendSecrets(def: BackendDefinition): void {
  const { held, passed } = definitionSecrets(def);
  for (const s of [...held, ...passed]) registerSecret(s);
  for (const s of held) withholdFromAgents(s);
}
