import "server-only";
import { secretForms } from "./secret-forms";

/**
 * Secrets the console knows (its token, backend passwords, bearer tokens and keys, the values of
 * secret variables it passes to agents) are registered here. They are scrubbed from every error
 * message it sends, together with credentials that look like ones (URL user-info, Authorization
 * header values), and removed by exact value — and in their base64 and URL-encoded forms — from
 * shares and exports (the share redactor's `exact` rule, server/redaction/redactor.ts).
 */
const g = globalThis as typeof globalThis & {
  __switchboardSecrets?: Set<string>;
  __switchboardSecretsVersion?: number;
};
const secrets = (g.__switchboardSecrets ??= new Set<string>());

/** Shorter values are not registered: they would cut ordinary words out of text. */
export const MIN_SECRET_LENGTH = 8;

export function registerSecret(value: string | undefined): void {
  if (!value || value.length < MIN_SECRET_LENGTH || secrets.has(value)) return;
  secrets.add(value);
  g.__switchboardSecretsVersion = secretsVersion() + 1;
}

/** Every registered secret (for the share redactor). */
export function knownSecrets(): string[] {
  return [...secrets];
}

/** Grows whenever a secret is registered: a redactor built for an older version is rebuilt. */
export function secretsVersion(): number {
  return g.__switchboardSecretsVersion ?? 0;
}

export function redactSecrets(text: string): string {
  let out = text;
  for (const s of secrets) for (const form of secretForms(s)) if (out.includes(form)) out = out.split(form).join("***");
  return out
    .replace(/\b(https?:\/\/)[^\s/@:]+:[^\s/@]+@/gi, "$1***@")
    .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g, "$1 ***");
}
