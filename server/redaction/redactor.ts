import { secretForms } from "./secret-forms";

/**
 * Secret redaction for everything a share serves (docs/sharing.md). Pure: no I/O, no clock.
 *
 * Each rule finds a secret (the whole match, or one capture group of it) and replaces it with a
 * visible marker `[REDACTED:<kind>]`. Rules run in order over the text; a match that overlaps a
 * marker an earlier rule inserted is left alone, so markers are never redacted again and running
 * the redactor twice gives the same text.
 *
 * Every regex here is written so that it can only start at a token boundary and scans a bounded
 * run; none nests quantifiers, so the cost stays linear in the text.
 */

export const MARKER_PREFIX = "[REDACTED:";
const MARKER_RE = /\[REDACTED:[a-z0-9][a-z0-9-]{0,40}\]/g;

export function markerFor(kind: string): string {
  return `${MARKER_PREFIX}${kind}]`;
}

export interface RedactionRule {
  /** The marker's name, e.g. `openai-key`. */
  kind: string;
  /** What it catches, for docs and the settings page. */
  description: string;
  re: RegExp;
  /** The capture group holding the secret (0, the default, is the whole match). */
  group?: number;
  /** A last check on the candidate secret (and the whole match); false leaves it alone. */
  accept?(secret: string, match: RegExpExecArray): boolean;
  /** A more precise kind for this secret (e.g. a provider key found as an env value). */
  kindOf?(secret: string, match: RegExpExecArray): string | undefined;
  /**
   * Look only in blocks of base64 / hex lines (`WRAPPED_BLOCK`), with their line breaks taken out:
   * what `base64` (76 columns), `openssl base64` (64) and `xxd -p` (60) print. The match may then
   * span line breaks; it is replaced whole, breaks included. For rules without a capture group.
   */
  acrossLineBreaks?: boolean;
}

export interface Finding {
  kind: string;
  /** A hint of what was removed, never the secret: its first characters and its length. */
  masked: string;
  /** Offset of the marker in the redacted text. */
  offset: number;
  /** A 32-bit hash of the secret, to count distinct secrets. Never sent anywhere. */
  fingerprint: string;
}

export interface RedactResult {
  text: string;
  findings: Finding[];
}

/* ---------------------------------------------------------------------------------- helpers */

/** Shannon entropy in bits per character. */
export function entropy(s: string): number {
  if (!s) return 0;
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

const hasDigit = (s: string) => /\d/.test(s);
const hasLetter = (s: string) => /[A-Za-z]/.test(s);

/** Looks like a random token rather than a word: letters and digits, and varied. */
export function looksRandom(s: string, minLength = 16): boolean {
  return s.length >= minLength && hasDigit(s) && hasLetter(s) && entropy(s) >= 3;
}

/** FNV-1a, 32 bits: enough to tell secrets apart in one preview. */
function fingerprint(secret: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < secret.length; i++) {
    h ^= secret.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16);
}

function mask(secret: string): string {
  const show = Math.min(4, Math.floor(secret.length / 4));
  return `${secret.slice(0, show)}…(${secret.length} chars)`;
}

const rx = (src: string, flags = "") => new RegExp(src, `gd${flags}`);

/* --------------------------------------------------------------------- secret-looking names */

/**
 * Variable / field / header names whose value is a secret (case-insensitive, leading dashes of a
 * flag ignored). The rule is about the LAST word of the name:
 *
 * - it is one of the words below, alone or after `_`, `.` or `-`: `API_KEY`, `GH_TOKEN`,
 *   `STRIPE_SECRET`, `DB_PASS`, `MYSQL_PWD`, `PRIVATE_KEY`, `CLIENT_SECRET`, `SECRET_KEY_BASE`,
 *   `DATABASE_URL`, `--password`;
 * - or it ends in a word distinctive enough to count even glued to what comes before it
 *   (`SECRET_SUFFIX`): `PGPASSWORD`, `MYSQLPASSWORD`, `GITHUBTOKEN`, `openaiApiKey`, `appSecret`.
 *
 * A secret word at the start of a longer name does not count — `PASSWORD_MIN_LENGTH`,
 * `SECRET_SANTA`, `TOKEN_COUNT`, `PRIVATE_KEY_PATH`, `passwordless` name settings about secrets,
 * not secrets. Short words (`key`, `pass`, `pwd`, `pw`) only count after a separator, never glued:
 * `monkey`, `BYPASS`, `COMPASS`, `OLDPWD` are not secrets.
 */
const SECRET_NAME =
  /(?:^|[_.-])(?:api[_-]?key|apikey|access[_-]?key|secret(?:[_-]?(?:key|access[_-]?key))?|secret[_-]?key[_-]?base|client[_-]?secret|token|access[_-]?token|auth[_-]?token|refresh[_-]?token|id[_-]?token|bearer|password|passwd|pass|pwd|pw|passphrase|private[_-]?key|credentials?|database[_-]?url|db[_-]?url|dsn|connection[_-]?string|conn[_-]?str|key|session[_-]?secret|signature|sig)$/i;
/** Last words that make a name secret even without a separator before them. */
const SECRET_SUFFIX = /(?:password|passwd|passphrase|secret|token|api[_-]?key)$/i;
/** Names that match the pattern but are not secrets. */
const NOT_SECRET_NAMES = new Set(["pwd", "oldpwd", "key"]);

export function isSecretName(name: string): boolean {
  const n = name.replace(/^-+/, "");
  if (!n || n.length > 100) return false;
  if (NOT_SECRET_NAMES.has(n.toLowerCase())) return false;
  return SECRET_NAME.test(n) || SECRET_SUFFIX.test(n);
}

/** Values that are never secrets even under a secret-looking name. */
const NOT_SECRET_VALUES = /^(?:true|false|null|nil|none|undefined|yes|no|on|off|\d{1,3})$/i;

const DB_SCHEMES =
  /^(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|redis|rediss|amqps?|mssql|sqlserver|cockroachdb|clickhouse|jdbc:[a-z]+|oracle|couchdb|neo4j|nats)$/i;

/* ----------------------------------------------------------------------------- built-in rules */

const providerRules: RedactionRule[] = [
  {
    kind: "anthropic-key",
    description: "Anthropic API keys (sk-ant-…)",
    re: rx(`(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}`),
  },
  {
    kind: "openai-key",
    description: "OpenAI API keys (sk-…, sk-proj-…, sk-svcacct-…)",
    re: rx(`(?<![A-Za-z0-9_-])sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}`),
    accept: (s) => hasDigit(s) && /[A-Za-z].*[A-Za-z]/.test(s.slice(3)),
  },
  {
    kind: "github-token",
    description: "GitHub tokens (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_)",
    re: rx(`(?<![A-Za-z0-9_])(?:(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})`),
  },
  {
    kind: "gitlab-token",
    description: "GitLab personal access tokens (glpat-…)",
    re: rx(`(?<![A-Za-z0-9_-])glpat-[A-Za-z0-9_-]{20,}`),
  },
  {
    kind: "aws-access-key",
    description: "AWS access key ids (AKIA…, ASIA…)",
    re: rx(`(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])`),
  },
  {
    kind: "aws-secret-key",
    description: "AWS secret access keys next to their name",
    re: rx(
      String.raw`aws_?secret_?(?:access_?)?key["']?\s{0,5}[:=]\s{0,5}["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])`,
      "i",
    ),
    group: 1,
  },
  {
    kind: "google-api-key",
    description: "Google API keys (AIza…)",
    re: rx(`(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])`),
  },
  {
    kind: "slack-token",
    description: "Slack tokens (xoxb-, xoxp-, xoxa-, …) and webhook URLs",
    re: rx(
      String.raw`(?<![A-Za-z0-9_-])(?:xox[abposre]-[A-Za-z0-9-]{10,}|https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{10,})`,
    ),
  },
  {
    kind: "stripe-key",
    description: "Stripe secret and restricted keys (sk_live_, rk_live_, sk_test_), webhook secrets",
    re: rx(`(?<![A-Za-z0-9_])(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})`),
  },
  {
    kind: "npm-token",
    description: "npm access tokens (npm_…)",
    re: rx(`(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])`),
  },
  {
    kind: "huggingface-token",
    description: "Hugging Face tokens (hf_…)",
    re: rx(`(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}`),
    accept: (s) => hasDigit(s),
  },
  {
    kind: "sendgrid-key",
    description: "SendGrid API keys (SG.….…)",
    re: rx(String.raw`(?<![A-Za-z0-9_])SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`),
  },
];

/** The provider kind of a value, if it is one of the well-known key formats. */
function providerKind(value: string): string | undefined {
  for (const r of providerRules) {
    if (r.group) continue;
    r.re.lastIndex = 0;
    const m = r.re.exec(value);
    r.re.lastIndex = 0;
    if (m && m[0] === value && (!r.accept || r.accept(value, m))) return r.kind;
  }
  if (/^eyJ[A-Za-z0-9_-]+\.eyJ/.test(value)) return "jwt";
  const scheme = /^([a-z][a-z0-9+.:-]{1,30}):\/\//i.exec(value)?.[1];
  if (scheme && DB_SCHEMES.test(scheme)) return "connection-string";
  return undefined;
}

const secretValue = (v: string) => !NOT_SECRET_VALUES.test(v);
/** A secret under a secret-looking name (the name is capture group `nameGroup`). */
const namedSecret = (nameGroup: number) => (v: string, m: RegExpExecArray) =>
  isSecretName(m[nameGroup] ?? "") && secretValue(v);
/** A credential-looking word: not a plain (capitalized) word of prose. */
function credentialLike(s: string): boolean {
  if (s.length < 8 || !secretValue(s)) return false;
  return /\d/.test(s) || /[._~+/=-]/.test(s) || (/[a-z]/.test(s) && /[A-Z]/.test(s) && !/^[A-Z][a-z]+$/.test(s));
}

export const BUILTIN_RULES: readonly RedactionRule[] = [
  {
    kind: "private-key",
    description: "Private key blocks (-----BEGIN … PRIVATE KEY----- … -----END …), also when cut off",
    re: rx(
      String.raw`-----BEGIN (?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?-----|$(?![\s\S]))`,
    ),
  },
  {
    kind: "jwt",
    description: "JSON Web Tokens (eyJ….eyJ….…)",
    re: rx(String.raw`(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*`),
  },
  ...providerRules,
  {
    kind: "secret",
    description: "NAME=value where the name looks secret (*_KEY, *_TOKEN, *_SECRET, *PASSWORD, *_PASS, DATABASE_URL …)",
    // NAME=value, unquoted, no spaces around `=`; the name starts at a token boundary.
    re: rx(String.raw`(?<![A-Za-z0-9_.-])(-{0,2}[A-Za-z_][A-Za-z0-9_.-]{0,100})=([^\s"'\x60&;|<>()]+)`),
    group: 2,
    accept: namedSecret(1),
    kindOf: providerKind,
  },
  {
    kind: "secret",
    description: `"name": "value" / name = 'value' where the name looks secret`,
    re: rx(
      String.raw`(?<![A-Za-z0-9_.-])(["']?)(-{0,2}[A-Za-z_][A-Za-z0-9_.-]{0,100})\1[ \t]{0,10}[:=][ \t]{0,10}(["'])((?:(?!\3)[^\\\n]|\\.){1,4000})\3`,
    ),
    group: 4,
    accept: namedSecret(2),
    kindOf: providerKind,
  },
  {
    kind: "secret",
    description: "name: value (YAML, headers) where the name looks secret and the value is one word",
    re: rx(
      String.raw`^[ \t]{0,40}(?:-[ \t]+)?([A-Za-z_][A-Za-z0-9_.-]{0,100})[ \t]*:[ \t]+([^\s#"'][^\s#]*)[ \t]*$`,
      "m",
    ),
    group: 2,
    accept: namedSecret(1),
    kindOf: providerKind,
  },
  {
    kind: "url-credentials",
    description: "Passwords in URLs (https://user:pass@host, postgres://u:p@h/db)",
    re: rx(
      String.raw`(?<![A-Za-z0-9+.-])([a-z][a-z0-9+.-]{1,20}):\/\/([^\s:/?#@"'<>]{1,200}):([^\s/?#"'<>]{1,500})@`,
      "i",
    ),
    group: 3,
    kindOf: (_s, m) => (DB_SCHEMES.test(m[1] ?? "") ? "connection-string" : undefined),
  },
  {
    kind: "auth-header",
    description: "Authorization headers (Bearer, Basic, Token …) and X-…-Key / -Token headers",
    re: rx(
      String.raw`(?<![A-Za-z0-9-])(?:(?:proxy-)?authorization|x-[a-z0-9-]{0,40}(?:key|token|secret|signature)|api-key)["']?[ \t]*[:=][ \t]*["']?(?:(?:bearer|basic|token|digest|bot)[ \t]+)?([^\s"',;]{4,})`,
      "i",
    ),
    group: 1,
    accept: credentialLike,
  },
  {
    kind: "bearer-token",
    description: "Bearer tokens outside headers (bearer <token>)",
    re: rx(String.raw`(?<![A-Za-z0-9_-])bearer[ \t]+([A-Za-z0-9._~+/=-]{12,})`, "i"),
    group: 1,
    accept: (s) => hasDigit(s),
  },
  {
    kind: "basic-auth",
    description: "curl -u user:password",
    re: rx(String.raw`(?<![A-Za-z0-9_-])(?:-u|--user)[ \t]+["']?[^\s:"']{1,200}:([^\s"']{1,500})`),
    group: 1,
  },
  {
    kind: "generic-secret",
    description: 'High-entropy values after token / api key / secret / password ("token: 8f3a…")',
    re: rx(
      String.raw`(?<![A-Za-z0-9_-])(?:token|api[ _-]?key|apikey|secret|password|passwd)s?\b[ \t]{0,5}(?:is[ \t]+|[:=][ \t]{0,5})?["']?([A-Za-z0-9._~+/=-]{16,512})`,
      "i",
    ),
    group: 1,
    accept: (s) => looksRandom(s),
  },
];

/* ------------------------------------------------------------------------------- custom rules */

export interface CustomPattern {
  id: string;
  label: string;
  pattern: string;
  /** true: `pattern` is a regular expression; false: a literal string. */
  regex: boolean;
}

export const MAX_CUSTOM_PATTERN_LENGTH = 300;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export function kindForLabel(label: string): string {
  const s = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "");
  return s || "custom";
}

/**
 * Why a user pattern cannot be used, or undefined when it can. Refuses what does not compile,
 * what matches the empty string, and nested quantifiers (`(a+)+`), which can take exponential time.
 */
export function validateCustomPattern(pattern: string, regex: boolean): string | undefined {
  if (!pattern.trim()) return "The pattern is empty";
  if (pattern.length > MAX_CUSTOM_PATTERN_LENGTH)
    return `The pattern is longer than ${MAX_CUSTOM_PATTERN_LENGTH} characters`;
  if (!regex) return pattern.trim().length < 3 ? "A literal pattern needs at least 3 characters" : undefined;
  let re: RegExp;
  try {
    re = new RegExp(pattern, "g");
  } catch (err) {
    return `Not a valid regular expression: ${err instanceof Error ? err.message : String(err)}`;
  }
  if (re.test("")) return "The pattern matches empty text";
  // A quantified group that itself contains a quantifier: catastrophic backtracking.
  if (/\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)[+*{]/.test(pattern))
    return "Nested quantifiers like (a+)+ are not allowed: they can take exponential time";
  if (/\\[1-9]/.test(pattern)) return "Back-references are not allowed";
  return undefined;
}

export function customRule(p: CustomPattern): RedactionRule {
  const err = validateCustomPattern(p.pattern, p.regex);
  if (err) throw new Error(err);
  return {
    kind: kindForLabel(p.label),
    description: p.label,
    re: rx(p.regex ? p.pattern : escapeRegExp(p.pattern)),
  };
}

/* ------------------------------------------------------------------------------- exact values */

/** The marker kind of a secret the console holds, found by its exact value. */
export const CONSOLE_SECRET_KIND = "console-secret";

/**
 * The rules that find the exact values of the secrets the console holds (its token, backend
 * passwords and keys) and their encoded forms (`secretForms`): one over the text as it is, one over
 * blocks of base64 / hex lines with their line breaks taken out (wrapped encodings). None when there
 * are no secrets.
 *
 * Both use one alternation of literal strings, which V8 searches in time linear in the text whatever
 * the number of forms (an alternation with optional line breaks between characters would be ten
 * times slower on every event); the wrapped blocks are rare, found by a regex that cannot backtrack.
 */
export function exactRules(secrets: readonly string[]): RedactionRule[] {
  const forms = [...new Set(secrets.filter((x) => x.length >= 8).flatMap((x) => secretForms(x)))].sort(
    (a, b) => b.length - a.length,
  );
  if (!forms.length) return [];
  const source = forms.map(escapeRegExp).join("|");
  return [
    {
      kind: CONSOLE_SECRET_KIND,
      description:
        "The exact values of the secrets the console holds (its token, backend passwords, tokens and keys), also base64- (wrapped or not), hex- and URL-encoded",
      re: rx(source),
    },
    {
      kind: CONSOLE_SECRET_KIND,
      description: "The same, base64 or hex broken into lines (base64, openssl base64, xxd -p)",
      re: rx(source),
      acrossLineBreaks: true,
    },
  ];
}

/** One exact-value rule (the first of `exactRules`), or undefined when there are no secrets. */
export function exactRule(secrets: readonly string[]): RedactionRule | undefined {
  return exactRules(secrets)[0];
}

/* ---------------------------------------------------------------------------------- applying */

function markerSpans(text: string): [number, number][] {
  if (!text.includes(MARKER_PREFIX)) return [];
  const spans: [number, number][] = [];
  MARKER_RE.lastIndex = 0;
  for (let m = MARKER_RE.exec(text); m; m = MARKER_RE.exec(text)) spans.push([m.index, m.index + m[0].length]);
  return spans;
}

function overlaps(spans: [number, number][], start: number, end: number): boolean {
  for (const [a, b] of spans) if (start < b && end > a) return true;
  return false;
}

interface Match {
  m: RegExpExecArray;
  secret: string;
  start: number;
  end: number;
}

function* matches(text: string, re: RegExp, group: number): Generator<Match> {
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    const secret = m[group];
    const at = m.indices?.[group];
    if (secret && at) yield { m, secret, start: at[0], end: at[1] };
  }
}

/**
 * A run of base64 / hex characters that goes on over at least one line break (`\n` or `\r\n`):
 * a wrapped encoding. It starts at a token boundary, and the class excludes the line break, so
 * where each line ends is never in doubt: no backtracking.
 */
const WRAPPED_BLOCK = /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/=_-]{8,}(?:\r?\n[A-Za-z0-9+/=_-]+)+/g;

const LINE_BREAK = /\r?\n/g;

/** Matches of `re` in each wrapped block with its line breaks taken out, as spans of `text`. */
function* wrappedMatches(text: string, re: RegExp): Generator<Match> {
  if (!text.includes("\n")) return;
  WRAPPED_BLOCK.lastIndex = 0;
  for (let b = WRAPPED_BLOCK.exec(text); b; b = WRAPPED_BLOCK.exec(text)) {
    const block = b[0];
    const joined = block.replace(LINE_BREAK, "");
    // Each line break: where it falls in `joined`, and how many characters were taken out up to it.
    const breaks: [number, number][] = [];
    let removed = 0;
    LINE_BREAK.lastIndex = 0;
    for (let lb = LINE_BREAK.exec(block); lb; lb = LINE_BREAK.exec(block)) {
      removed += lb[0].length;
      breaks.push([lb.index - (removed - lb[0].length), removed]);
    }
    // Matches come in order: one walk over the breaks maps them all.
    let k = 0;
    let shift = 0;
    const toText = (j: number) => {
      for (; k < breaks.length && (breaks[k] as [number, number])[0] <= j; k++)
        shift = (breaks[k] as [number, number])[1];
      return b.index + j + shift;
    };
    re.lastIndex = 0;
    for (let m = re.exec(joined); m; m = re.exec(joined)) {
      if (m[0].length === 0) {
        re.lastIndex++;
        continue;
      }
      const start = toText(m.index);
      const end = toText(m.index + m[0].length - 1) + 1;
      yield { m, secret: m[0], start, end };
    }
  }
}

function applyRule(text: string, rule: RedactionRule, findings: Finding[]): string {
  const re = rule.re;
  re.lastIndex = 0;
  const spans = markerSpans(text);
  const group = rule.group ?? 0;
  let out = "";
  let last = 0;
  /** Replacements in the input: [end offset, cumulative length change] — to move earlier findings. */
  const moves: [number, number][] = [];
  let delta = 0;
  const fresh: Finding[] = [];
  for (const { m, secret, start, end } of rule.acrossLineBreaks ? wrappedMatches(text, re) : matches(text, re, group)) {
    if (start < last || overlaps(spans, start, end)) continue;
    if (rule.accept && !rule.accept(secret, m)) continue;
    const kind = rule.kindOf?.(secret, m) ?? rule.kind;
    const marker = markerFor(kind);
    out += text.slice(last, start);
    fresh.push({ kind, masked: mask(secret), offset: out.length, fingerprint: fingerprint(secret) });
    out += marker;
    last = end;
    delta += marker.length - (end - start);
    moves.push([end, delta]);
  }
  if (!moves.length) return text;
  out += text.slice(last);
  // Findings of earlier rules sit outside every replaced span: shift them by what changed before them.
  for (const f of findings) {
    let shift = 0;
    for (const [end, d] of moves) {
      if (end <= f.offset) shift = d;
      else break;
    }
    f.offset += shift;
  }
  findings.push(...fresh);
  return out;
}

/** Quick filter: most text holds none of the characters every rule needs. */
const MAYBE_SECRET = /[=:_-]|sk-|eyJ|AKIA|ASIA|AIza|BEGIN|bearer|token|password|secret|key/i;

/** Redacts strings (and values holding strings) with the built-in rules plus the user's patterns. */
export class Redactor {
  readonly rules: readonly RedactionRule[];
  readonly custom: readonly RedactionRule[];
  private readonly exact: boolean;
  /** Whether strings under secret-looking keys are removed whole (with the built-in rules). */
  private readonly byKeyName: boolean;

  /**
   * `custom`: the user's patterns. `secrets`: the exact values the console holds, removed first
   * (with their encoded forms), before any pattern sees the text.
   */
  constructor(
    custom: readonly CustomPattern[] = [],
    secrets: readonly string[] = [],
    opts: { builtin?: boolean } = {},
  ) {
    const compiled: RedactionRule[] = [];
    for (const p of custom) {
      try {
        compiled.push(customRule(p));
      } catch {
        // An invalid stored pattern is skipped; the settings page refuses new ones.
      }
    }
    this.custom = compiled;
    const exact = exactRules(secrets);
    this.exact = exact.length > 0;
    this.byKeyName = opts.builtin !== false;
    // The user's patterns run last so they cannot cut a well-known key in half before its rule sees it.
    this.rules = [...exact, ...(opts.builtin === false ? [] : BUILTIN_RULES), ...compiled];
  }

  /** The redacted text and what was removed. */
  redact(text: string): RedactResult {
    const findings: Finding[] = [];
    if (!text) return { text, findings };
    let out = text;
    const quick = this.exact || this.custom.length > 0 || (this.rules.length > 0 && MAYBE_SECRET.test(text));
    if (!quick) return { text, findings };
    for (const rule of this.rules) out = applyRule(out, rule, findings);
    findings.sort((a, b) => a.offset - b.offset);
    return { text: out, findings };
  }

  text(text: string, sink?: Finding[]): string {
    const r = this.redact(text);
    if (sink) sink.push(...r.findings);
    return r.text;
  }

  /**
   * Redacts every string inside a JSON-like value. A string under a secret-looking key
   * (`{"API_KEY": "…"}`) is removed whole.
   */
  value(v: unknown, sink?: Finding[], depth = 0): unknown {
    if (typeof v === "string") return this.text(v, sink);
    if (depth > 20 || v === null || typeof v !== "object") return v;
    if (Array.isArray(v)) return v.map((x) => this.value(x, sink, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (
        this.byKeyName &&
        typeof x === "string" &&
        x !== "" &&
        isSecretName(k) &&
        secretValue(x) &&
        !x.startsWith(MARKER_PREFIX)
      ) {
        const kind = providerKind(x) ?? "secret";
        sink?.push({ kind, masked: mask(x), offset: 0, fingerprint: fingerprint(x) });
        out[k] = markerFor(kind);
      } else out[k] = this.value(x, sink, depth + 1);
    }
    return out;
  }
}

/** Every marker in a text, in order, with a single-line excerpt around it (for previews). */
export function excerpts(text: string, radius = 48): { kind: string; excerpt: string }[] {
  const out: { kind: string; excerpt: string }[] = [];
  MARKER_RE.lastIndex = 0;
  for (let m = MARKER_RE.exec(text); m; m = MARKER_RE.exec(text)) {
    const start = Math.max(0, m.index - radius);
    const end = Math.min(text.length, m.index + m[0].length + radius);
    const excerpt =
      (start > 0 ? "…" : "") + text.slice(start, end).replace(/\s+/g, " ") + (end < text.length ? "…" : "");
    out.push({ kind: m[0].slice(MARKER_PREFIX.length, -1), excerpt });
  }
  return out;
}
