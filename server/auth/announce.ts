import "server-only";
import path from "node:path";
import { consoleAuth } from "./console-auth";

/**
 * Where this server listens, when that can be known. `next start` runs the server in its own
 * process, so its command line is `process.argv`: `-H`/`--hostname` if given (the last one wins, as
 * in Next's option parser), else every interface — Next's default, also for a bare `next start`.
 * `undefined` when this is not `next start` (the worker `next dev` forks, a custom server): then
 * nothing is assumed. Next itself never reads `HOST`; only `scripts/start.mjs` turns it into `-H`.
 */
export function listenAddress(argv: readonly string[] = process.argv): { host?: string } | undefined {
  const bin = 1; // argv[0] is node, argv[1] Next's bin (node's own flags are in execArgv)
  if (!argv[bin] || path.basename(argv[bin]) !== "next" || argv[bin + 1] !== "start") return undefined;
  let host: string | undefined;
  for (let i = bin + 2; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") break;
    if (a === "-H" || a === "--hostname") host = argv[++i];
    else if (a.startsWith("--hostname=")) host = a.slice("--hostname=".length);
    else if (a.startsWith("-H") && !a.startsWith("--")) host = a.slice(2);
  }
  host = host?.trim();
  return host ? { host } : {};
}

/** Only this machine can connect to it. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1");
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h) || /^::ffff:127(\.\d{1,3}){3}$/.test(h);
}

const isWildcard = (host: string) => ["0.0.0.0", "::", "[::]"].includes(host);

/**
 * The address people should open: where `next start` was told to listen (see `listenAddress`), else
 * HOST as `scripts/start.mjs` passes it on; loopback for a wildcard. PORT is the port Next bound
 * (it sets PORT before the server code runs).
 */
export function consoleOrigin(
  env: Readonly<Record<string, string | undefined>> = process.env,
  argv: readonly string[] = process.argv,
): string {
  const listen = listenAddress(argv);
  let host = (listen ? listen.host : env.HOST?.trim()) || "127.0.0.1";
  if (isWildcard(host)) host = "127.0.0.1";
  if (host.includes(":") && !host.startsWith("[")) host = `[${host}]`;
  return `http://${host}:${env.PORT || "3000"}`;
}

/**
 * The loud warning for a console reachable from other machines, or undefined when it is not (or
 * when where it listens cannot be known: see `listenAddress`).
 */
export function exposureWarning(argv: readonly string[] = process.argv): string | undefined {
  const listen = listenAddress(argv);
  if (!listen || (listen.host && isLoopbackHost(listen.host))) return undefined;
  const where = listen.host && !isWildcard(listen.host) ? listen.host : "every network interface";
  const how = listen.host ? "" : " (`next start` without -H listens on all of them; `npm start` binds 127.0.0.1)";
  return (
    `\n[switchboard] WARNING: listening on ${where}${how}; anyone who can reach this address can reach the console's login page.` +
    `\n[switchboard] Keep the token secret, and put TLS in front of it (see docs/security.md).\n`
  );
}

const WARNED = Symbol.for("switchboard.exposureWarned");

/**
 * Prints how to log in, Jupyter-style: with a generated token, the full login URL; with
 * SWITCHBOARD_TOKEN, the URL without it (the operator already has it). Before it, once per process,
 * the warning when the console listens beyond loopback — printed here, by the server, so that
 * `next start -H 0.0.0.0` gets it as well as `HOST=0.0.0.0 npm start`.
 */
export function announceLogin(): void {
  const g = globalThis as { [WARNED]?: boolean };
  const warning = exposureWarning();
  if (warning && !g[WARNED]) {
    g[WARNED] = true;
    console.warn(warning);
  }
  const { token } = consoleAuth();
  const origin = consoleOrigin();
  const lines =
    token.source === "env"
      ? [
          `Log in at ${origin}/login with the token from ${token.file ? `SWITCHBOARD_TOKEN_FILE (${token.file})` : "SWITCHBOARD_TOKEN"}.`,
        ]
      : [
          `Console token ${token.source === "generated" ? "generated and " : ""}stored in ${token.file}`,
          `To log in, open:`,
          `    ${origin}/login?token=${encodeURIComponent(token.token)}`,
        ];
  console.log(["", ...lines.map((l) => `  ${l}`), ""].join("\n"));
}
