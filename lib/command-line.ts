/**
 * A command line as typed in the settings form ↔ the `command: string[]` of a backend definition.
 * Splits on whitespace; single quotes keep everything literal, double quotes allow `\"` and `\\`, and a
 * backslash outside quotes escapes the next character. No variables, globs or pipes: the command is
 * spawned directly, never through a shell.
 */
export function parseCommandLine(line: string): string[] {
  const out: string[] = [];
  let cur = "";
  let has = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else cur += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === "\\" && (line[i + 1] === '"' || line[i + 1] === "\\")) cur += line[++i]!;
      else cur += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      has = true;
    } else if (c === "\\" && i + 1 < line.length) {
      cur += line[++i]!;
      has = true;
    } else if (/\s/.test(c)) {
      if (has || cur) out.push(cur);
      cur = "";
      has = false;
    } else {
      cur += c;
    }
  }
  if (quote) throw new Error(`Unclosed ${quote === "'" ? "single" : "double"} quote`);
  if (has || cur) out.push(cur);
  return out;
}

/** The reverse: quotes only the arguments that need it. */
export function formatCommandLine(args: string[]): string {
  return args.map((a) => (a !== "" && /^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(" ");
}

/** `KEY=value` lines → an env object (blank lines and `#` comments ignored). */
export function parseEnvLines(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const eq = line.indexOf("=");
    if (eq <= 0) throw new Error(`Not a KEY=value line: ${line.slice(0, 40)}`);
    const key = line.slice(0, eq).trim();
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw new Error(`Not a valid variable name: ${key}`);
    env[key] = line.slice(eq + 1);
  }
  return env;
}
