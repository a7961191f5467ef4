import "server-only";
import { consoleAuth } from "./console-auth";

/** The address people should open: HOST/PORT as `next start` was given them, loopback for a wildcard. */
export function consoleOrigin(env: Readonly<Record<string, string | undefined>> = process.env): string {
  let host = env.HOST?.trim() || "127.0.0.1";
  if (host === "0.0.0.0" || host === "::" || host === "[::]") host = "127.0.0.1";
  if (host.includes(":") && !host.startsWith("[")) host = `[${host}]`;
  return `http://${host}:${env.PORT || "3000"}`;
}

/**
 * Prints how to log in, Jupyter-style: with a generated token, the full login URL; with
 * SWITCHBOARD_TOKEN, the URL without it (the operator already has it).
 */
export function announceLogin(): void {
  const { token } = consoleAuth();
  const origin = consoleOrigin();
  const lines =
    token.source === "env"
      ? [`Log in at ${origin}/login with the token from SWITCHBOARD_TOKEN.`]
      : [
          `Console token ${token.source === "generated" ? "generated and " : ""}stored in ${token.file}`,
          `To log in, open:`,
          `    ${origin}/login?token=${encodeURIComponent(token.token)}`,
        ];
  console.log(["", ...lines.map((l) => `  ${l}`), ""].join("\n"));
}
