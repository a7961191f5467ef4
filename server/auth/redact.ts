import "server-only";

/**
 * Secrets the console knows (its token, backend passwords and bearer tokens) are registered here
 * and scrubbed from every error message it sends, together with credentials that look like ones
 * (URL user-info, Authorization header values).
 */
const g = globalThis as typeof globalThis & { __switchboardSecrets?: Set<string> };
const secrets = (g.__switchboardSecrets ??= new Set<string>());

export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 4) secrets.add(value);
}

export function redactSecrets(text: string): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join("***");
  return out
    .replace(/\b(https?:\/\/)[^\s/@:]+:[^\s/@]+@/gi, "$1***@")
    .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g, "$1 ***");
}
