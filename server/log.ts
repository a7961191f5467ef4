import "server-only";

type Fields = Record<string, unknown>;
const quiet = process.env.SWITCHBOARD_LOG === "silent";
const debugOn = process.env.SWITCHBOARD_LOG === "debug";

function write(level: string, msg: string, fields?: Fields) {
  if (quiet) return;
  const extra = fields && Object.keys(fields).length ? ` ${JSON.stringify(fields)}` : "";
  const line = `[switchboard] ${level} ${msg}${extra}`;
  if (level === "error" || level === "warn") console.error(line);
  else console.log(line);
}

/** Plain structured logging to stdout/stderr; never sent to the browser. */
export const log = {
  debug: (msg: string, f?: Fields) => debugOn && write("debug", msg, f),
  info: (msg: string, f?: Fields) => write("info", msg, f),
  warn: (msg: string, f?: Fields) => write("warn", msg, f),
  error: (msg: string, f?: Fields) => write("error", msg, f),
};
