import { describe, expect, it } from "vitest";
import {
  BUILTIN_RULES,
  Redactor,
  entropy,
  excerpts,
  isSecretName,
  kindForLabel,
  markerFor,
  validateCustomPattern,
} from "./redactor";

const redactor = new Redactor();
const r = (s: string) => redactor.redact(s).text;
const kinds = (s: string) => redactor.redact(s).findings.map((f) => f.kind);

// Fake credentials, shaped like the real ones.
const OPENAI = "sk-proj-Ab3dEf6hIj9kLmN0pQr2StU5vWx8Yz1aBcD4eFg7HiJ";
const OPENAI_LEGACY = "sk-4f9Tz1qK8wLm3Xb7Vn2Rc6Hy0Ju5Ei8Oa1Sd4Fg7Hk9Lz2Xc";
const ANTHROPIC = "sk-ant-api03-Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Jh0Gf9Ed8Cb7Az6-AbCdEf";
const GITHUB = "ghp_16C7e42F292c6912E7710c838347Ae178B4a";
const GITHUB_PAT = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCD";
const AWS_ID = "AKIAIOSFODNN7EXAMPLE";
const AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const GOOGLE = "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q";
const SLACK = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx";
const STRIPE = "sk_live_51H8aBcDeFgHiJkLmNoPqRsTuV";
const JWT =
  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
const PRIVATE_KEY = `-----BEGIN RSA PRIVATE KEY-----
MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2LKk8vTnP0yO1lbD1e5sZ0xbQ0K
x8r1J3Jc2mW8bKpL9nQ5sT7uV0wX2yZ4aB6cD8eF0gH2iJ4kL6mN8oP0qR2sT4u
-----END RSA PRIVATE KEY-----`;

describe("provider keys", () => {
  it.each([
    ["OpenAI project key", `key is ${OPENAI} ok`, "openai-key"],
    ["OpenAI legacy key", `use ${OPENAI_LEGACY}`, "openai-key"],
    ["Anthropic key", `x ${ANTHROPIC} y`, "anthropic-key"],
    ["GitHub classic token", `token ${GITHUB}`, "github-token"],
    ["GitHub fine-grained token", `${GITHUB_PAT}`, "github-token"],
    ["GitHub app token", "ghs_abcdefghijklmnopqrstuvwxyz0123456789", "github-token"],
    ["GitHub OAuth token", "gho_abcdefghijklmnopqrstuvwxyz0123456789", "github-token"],
    ["AWS access key id", `aws ${AWS_ID} here`, "aws-access-key"],
    ["Google API key", `https://maps.googleapis.com/x?q=1&k=${GOOGLE}`, "google-api-key"],
    ["Slack token", SLACK, "slack-token"],
    ["Slack webhook", "https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXXXXXX", "slack-token"],
    ["Stripe live key", STRIPE, "stripe-key"],
    ["Stripe restricted key", "rk_live_51H8aBcDeFgHiJkLmNoPqRsTuV", "stripe-key"],
    ["GitLab token", "glpat-xxxxXXXXyyyyYYYY1234", "gitlab-token"],
    ["npm token", "npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm-token"],
    ["Hugging Face token", "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567", "huggingface-token"],
  ])("%s", (_name, input, kind) => {
    const out = r(input);
    expect(out).toContain(markerFor(kind));
    expect(kinds(input)).toContain(kind);
  });

  it("removes the whole key and nothing around it", () => {
    expect(r(`export KEY_ID=1; curl -H 'x: y' --data ${OPENAI} done`)).toBe(
      `export KEY_ID=1; curl -H 'x: y' --data [REDACTED:openai-key] done`,
    );
  });

  it("an Anthropic key is not reported as an OpenAI key", () => {
    expect(kinds(ANTHROPIC)).toEqual(["anthropic-key"]);
  });

  it("AWS secret keys next to their name, in ini files and env", () => {
    expect(r(`[default]\naws_access_key_id = ${AWS_ID}\naws_secret_access_key = ${AWS_SECRET}\n`)).toBe(
      `[default]\naws_access_key_id = [REDACTED:aws-access-key]\naws_secret_access_key = [REDACTED:aws-secret-key]\n`,
    );
    expect(r(`AWS_SECRET_ACCESS_KEY=${AWS_SECRET}`)).toBe("AWS_SECRET_ACCESS_KEY=[REDACTED:aws-secret-key]");
  });
});

describe("credentials in headers and URLs", () => {
  it("Authorization: Bearer", () => {
    expect(r("curl -H 'Authorization: Bearer abc123def456ghi789' https://api.example.com")).toBe(
      "curl -H 'Authorization: Bearer [REDACTED:auth-header]' https://api.example.com",
    );
  });
  it("Authorization: Basic", () => {
    expect(r("Authorization: Basic dXNlcjpwYXNzd29yZA==")).toBe("Authorization: Basic [REDACTED:auth-header]");
  });
  it("a JWT in a bearer header is one marker", () => {
    expect(r(`Authorization: Bearer ${JWT}`)).toBe("Authorization: Bearer [REDACTED:jwt]");
  });
  it("JSON headers", () => {
    expect(r(`{"Authorization": "Bearer 9f8e7d6c5b4a39281706f5e4"}`)).toBe(
      `{"Authorization": "Bearer [REDACTED:auth-header]"}`,
    );
  });
  it("X-Api-Key and similar headers", () => {
    expect(r("-H 'X-Api-Key: 1a2b3c4d5e6f7a8b'")).toBe("-H 'X-Api-Key: [REDACTED:auth-header]'");
    expect(r("send x-goog-api-key: abcdEFGH1234 with it")).toBe("send x-goog-api-key: [REDACTED:auth-header] with it");
  });
  it("bearer tokens outside headers", () => {
    expect(r("use bearer 0a1b2c3d4e5f6a7b8c9d to call it")).toBe("use bearer [REDACTED:bearer-token] to call it");
  });
  it("https://user:pass@host", () => {
    expect(r("git clone https://alice:s3cr3t-pass@git.example.com/repo.git")).toBe(
      "git clone https://alice:[REDACTED:url-credentials]@git.example.com/repo.git",
    );
  });
  it("connection strings with passwords", () => {
    expect(r("connect to postgres://u:p@h/db now")).toBe(
      "connect to postgres://u:[REDACTED:connection-string]@h/db now",
    );
    expect(r("mongodb+srv://admin:hunter2@cluster0.mongodb.net/test")).toBe(
      "mongodb+srv://admin:[REDACTED:connection-string]@cluster0.mongodb.net/test",
    );
    expect(r("redis://default:pa@ss@cache:6379/0")).toBe("redis://default:[REDACTED:connection-string]@cache:6379/0");
  });
  it("curl -u user:password", () => {
    expect(r("curl -u admin:correct-horse https://x")).toBe("curl -u admin:[REDACTED:basic-auth] https://x");
  });
  it("JWTs", () => {
    expect(r(`token=${JWT}`)).toBe("token=[REDACTED:jwt]");
    expect(r(`cookie value ${JWT}.`)).toBe("cookie value [REDACTED:jwt].");
  });
});

describe("private keys", () => {
  it("a whole block", () => {
    expect(r(`before\n${PRIVATE_KEY}\nafter`)).toBe("before\n[REDACTED:private-key]\nafter");
  });
  it("other key types", () => {
    for (const t of ["", "EC ", "OPENSSH ", "ENCRYPTED ", "DSA "]) {
      const block = `-----BEGIN ${t}PRIVATE KEY-----\nAAAAB3NzaC1yc2EAAAADAQABAAABAQ\n-----END ${t}PRIVATE KEY-----`;
      expect(r(block)).toBe("[REDACTED:private-key]");
    }
    expect(r("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF...\n-----END PGP PRIVATE KEY BLOCK-----")).toBe(
      "[REDACTED:private-key]",
    );
  });
  it("a block cut off before its end (truncated output, a stream in progress)", () => {
    expect(r("key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5v")).toBe(
      "key:\n[REDACTED:private-key]",
    );
  });
  it("a key escaped inside JSON", () => {
    expect(r(`{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQ\\n-----END PRIVATE KEY-----\\n", "x": 1}`)).toBe(
      `{"private_key": "[REDACTED:private-key]\\n", "x": 1}`,
    );
  });
  it("public keys and certificates stay", () => {
    const pub = "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----";
    expect(r(pub)).toBe(pub);
    const cert =
      "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBa\n-----END CERTIFICATE-----";
    expect(r(cert)).toBe(cert);
  });
});

describe("NAME=value lines", () => {
  it.each([
    ["API_KEY=abc123", "API_KEY=[REDACTED:secret]"],
    ["export GITHUB_TOKEN=abcdef", "export GITHUB_TOKEN=[REDACTED:secret]"],
    ["STRIPE_SECRET=whatever", "STRIPE_SECRET=[REDACTED:secret]"],
    ["PASSWORD=hunter2", "PASSWORD=[REDACTED:secret]"],
    ["db_password=hunter2", "db_password=[REDACTED:secret]"],
    ["DATABASE_URL=postgres://u:p@h/db", "DATABASE_URL=[REDACTED:connection-string]"],
    ["DATABASE_URL=file:./dev.db", "DATABASE_URL=[REDACTED:secret]"],
    ["CLIENT_SECRET=xyz; next", "CLIENT_SECRET=[REDACTED:secret]; next"],
    ["env SESSION_SECRET=s3cr3t npm start", "env SESSION_SECRET=[REDACTED:secret] npm start"],
    ["mysql --password=hunter2 -h db", "mysql --password=[REDACTED:secret] -h db"],
    ["https://x.io/cb?access_token=abc.def-123&state=1", "https://x.io/cb?access_token=[REDACTED:secret]&state=1"],
    ["PRIVATE_KEY_PASSPHRASE=open sesame", "PRIVATE_KEY_PASSPHRASE=[REDACTED:secret] sesame"],
  ])("%s", (input, expected) => {
    expect(r(input)).toBe(expected);
  });

  // The secret word is the last word of the name: after `_`, `.`, `-`, or glued to the word before
  // it when it is distinctive (PASSWORD, PASSWD, PASSPHRASE, SECRET, TOKEN, APIKEY).
  it.each([
    ["PGPASSWORD=hunter2 psql -h db", "PGPASSWORD=[REDACTED:secret] psql -h db"],
    ["export MYSQL_PWD=x", "export MYSQL_PWD=[REDACTED:secret]"],
    ["SECRET_KEY_BASE=9f2c4e6a8b0d1f3e5a7c9e1b3d5f7a9c", "SECRET_KEY_BASE=[REDACTED:secret]"],
    ["DB_PASS=hunter2", "DB_PASS=[REDACTED:secret]"],
    ["SMTP_PASS=correct-horse", "SMTP_PASS=[REDACTED:secret]"],
    ["PRIVATE_KEY=abc123", "PRIVATE_KEY=[REDACTED:secret]"],
    ["CLIENT_SECRET=xyz", "CLIENT_SECRET=[REDACTED:secret]"],
    ["MYSQL_ROOT_PASSWORD=hunter2", "MYSQL_ROOT_PASSWORD=[REDACTED:secret]"],
    ["ADMINPASSWORD=hunter2", "ADMINPASSWORD=[REDACTED:secret]"],
    ["GITHUBTOKEN=abc123", "GITHUBTOKEN=[REDACTED:secret]"],
    ["MYAPIKEY=abc123", "MYAPIKEY=[REDACTED:secret]"],
    ["DB_PW=hunter2", "DB_PW=[REDACTED:secret]"],
    ["https://x.io/login?user=bob&pass=hunter2", "https://x.io/login?user=bob&pass=[REDACTED:secret]"],
    ["openssl enc --pass=hunter2", "openssl enc --pass=[REDACTED:secret]"],
  ])("%s", (input, expected) => {
    expect(r(input)).toBe(expected);
  });

  it("glued and short secret names in JSON, YAML and values", () => {
    expect(r(`{"dbPassword": "hunter2", "user": "admin"}`)).toBe(
      `{"dbPassword": "[REDACTED:secret]", "user": "admin"}`,
    );
    expect(r(`smtp:\n  pass: hunter2\n`)).toBe(`smtp:\n  pass: [REDACTED:secret]\n`);
    expect(redactor.value({ PGPASSWORD: "hunter2", DB_PASS: "x", PGUSER: "postgres" })).toEqual({
      PGPASSWORD: "[REDACTED:secret]",
      DB_PASS: "[REDACTED:secret]",
      PGUSER: "postgres",
    });
  });

  // A secret word at the start of a longer name names a setting about secrets; short words glued
  // to another (pass, pwd, key) are parts of ordinary words.
  it.each([
    "PASSWORD_MIN_LENGTH=8",
    "PASSWORD_MIN_LENGTH=1024",
    "PASSWORD_HASH_ALGO=argon2id",
    "SECRET_SANTA=alice",
    "SECRET_NAME=prod/db-credentials",
    "TOKEN_COUNT=123456",
    "PRIVATE_KEY_PATH=/etc/ssl/private/server.key",
    "PGPASSFILE=/home/me/.pgpass",
    "Set passwordless=true to log in with a magic link.",
    "BYPASS=proxy.internal",
    "COMPASS=north",
    "PASSTHROUGH=enabled",
    "PASSPORT_STRATEGY=local",
    "PW_TEST_HTML_REPORT_OPEN=never",
    "tokenCount=4096",
    "MONKEY=banana",
    "export OLDPWD=/home/user",
    "DB_PASS=",
    "PGPASSWORD=",
    "SMTP_PASS=true",
  ])("not: %s", (s) => {
    expect(r(s)).toBe(s);
  });

  it("a provider key under a secret name keeps its provider marker", () => {
    expect(r(`OPENAI_API_KEY=${OPENAI}`)).toBe("OPENAI_API_KEY=[REDACTED:openai-key]");
    expect(r(`export GH_TOKEN=${GITHUB}`)).toBe("export GH_TOKEN=[REDACTED:github-token]");
  });

  it("quoted values, JSON and YAML", () => {
    expect(r(`API_TOKEN="a b c"`)).toBe(`API_TOKEN="[REDACTED:secret]"`);
    expect(r(`password = 'hunter2'`)).toBe(`password = '[REDACTED:secret]'`);
    expect(r(`{"api_key": "abc", "name": "demo"}`)).toBe(`{"api_key": "[REDACTED:secret]", "name": "demo"}`);
    expect(r(`db:\n  password: hunter2\n  user: admin\n`)).toBe(`db:\n  password: [REDACTED:secret]\n  user: admin\n`);
    expect(r(`client_secret: "s3cr3t"`)).toBe(`client_secret: "[REDACTED:secret]"`);
  });

  it("a .env file", () => {
    const env = [
      "# settings",
      "NODE_ENV=production",
      "PORT=3000",
      "JWT_SECRET=change-me-please",
      "REDIS_URL=redis://cache:6379",
      "SMTP_PASSWORD=",
      "LOG_LEVEL=debug",
    ].join("\n");
    expect(r(env)).toBe(
      [
        "# settings",
        "NODE_ENV=production",
        "PORT=3000",
        "JWT_SECRET=[REDACTED:secret]",
        "REDIS_URL=redis://cache:6379",
        "SMTP_PASSWORD=",
        "LOG_LEVEL=debug",
      ].join("\n"),
    );
  });

  it("secret-looking names", () => {
    for (const n of [
      "API_KEY",
      "OPENAI_API_KEY",
      "aws_secret_access_key",
      "GH_TOKEN",
      "client_secret",
      "PASSWORD",
      "db-password",
      "DATABASE_URL",
      "--password",
      "X-Api-Key",
      "private_key",
      "SENTRY_DSN",
      "PGPASSWORD",
      "MYSQL_PWD",
      "SECRET_KEY_BASE",
      "DB_PASS",
      "PRIVATE_KEY",
      "CLIENT_SECRET",
      "newPassword",
      "openaiApiKey",
      "appSecret",
      "GITHUBTOKEN",
      "--pass",
    ]) {
      expect(isSecretName(n), n).toBe(true);
    }
    for (const n of [
      "PWD",
      "OLDPWD",
      "KEY",
      "NODE_ENV",
      "MAX_TOKENS",
      "TOKENIZERS_PARALLELISM",
      "keyboard",
      "monkey",
      "PASSWORD_MIN_LENGTH",
      "token_count",
      "name",
      "path",
      "SECRET_SANTA",
      "SECRET_NAME",
      "passwordless",
      "PRIVATE_KEY_PATH",
      "PGPASSFILE",
      "BYPASS",
      "COMPASS",
      "PASSTHROUGH",
      "PASSPORT",
      "tokenCount",
    ]) {
      expect(isSecretName(n), n).toBe(false);
    }
  });
});

describe("generic high-entropy secrets", () => {
  it("after token / api key / secret words", () => {
    expect(r("Your API key: 8f7d6a5c4b3e2f1a0b9c8d7e")).toBe("Your API key: [REDACTED:generic-secret]");
    expect(r("the token is 3kJ9xQ2mP7vL4nR8tY6w")).toBe("the token is [REDACTED:generic-secret]");
  });
  it("but not words after them", () => {
    for (const s of [
      "the token is automatically refreshed",
      "the secret ingredient is love",
      "password authentication failed for user",
      "token usage: 1234",
    ]) {
      expect(r(s)).toBe(s);
    }
  });
});

describe("must not redact", () => {
  it.each([
    "Let me check the scripts defined in the project.",
    "The password must be at least 12 characters long and the key is stored in the vault.",
    "Use a strong password. Rotate your API keys regularly; never commit a token.",
    "Please enter your password:",
    "Authorization: required for every request",
    "commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
    "git checkout 3f2a9c1",
    "id 123e4567-e89b-12d3-a456-426614174000",
    "/home/user/projects/switchboard/server/redaction/redact.ts",
    "src/components/token-input.tsx:42:7",
    "C:\\Users\\me\\secret-project\\README.md",
    "KEY_NAME=",
    "API_KEY=",
    'SECRET=""',
    "export PWD=/home/user",
    "MAX_TOKENS=4096",
    "USE_TOKEN=true",
    "DEBUG=1 npm test",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "https://github.com/org/repo/blob/main/README.md",
    "ssh git@github.com:org/repo.git",
    "mailto:someone@example.com",
    "const token = await getToken();",
    "if (password === confirmPassword) return;",
    "def check(key, value): return key == value",
    "sk-learn is not a package name",
    "The bearer of this message",
    "a-very-long-hyphenated-identifier-with-no-secrets-in-it-at-all",
    "-----BEGIN PUBLIC KEY-----",
    "base64: SGVsbG8sIHdvcmxkIQ==",
    "| col | token count |\n|---|---|\n| a | 12 |",
  ])("%s", (s) => {
    expect(r(s)).toBe(s);
  });
});

describe("markers", () => {
  it("is idempotent: markers are never redacted again", () => {
    const once = r(
      `OPENAI_API_KEY=${OPENAI}\nDATABASE_URL=postgres://u:p@h/db\n${PRIVATE_KEY}\nAuthorization: Bearer abc123def456ghi`,
    );
    expect(r(once)).toBe(once);
    expect(redactor.redact(once).findings).toEqual([]);
  });

  it("findings point at their markers, in order, with a masked hint", () => {
    const text = `A=1 PASSWORD=hunter2 then ${GITHUB} and ${PRIVATE_KEY}`;
    const { text: out, findings } = redactor.redact(text);
    expect(findings.map((f) => f.kind)).toEqual(["secret", "github-token", "private-key"]);
    for (const f of findings) expect(out.startsWith(markerFor(f.kind), f.offset)).toBe(true);
    expect(findings[1]!.masked).toBe("ghp_…(40 chars)");
    for (const f of findings) expect(f.masked).not.toContain("hunter2");
  });

  it("excerpts show the marker in context on one line", () => {
    const out = r(`line one\nexport PASSWORD=hunter2\nline three`);
    expect(excerpts(out)).toEqual([
      { kind: "secret", excerpt: "line one export PASSWORD=[REDACTED:secret] line three" },
    ]);
  });
});

describe("values", () => {
  it("redacts every string, and whole values under secret-looking keys", () => {
    const input = {
      command: `curl -H "Authorization: Bearer abc123def456ghi" x`,
      env: { API_KEY: "short", HOME: "/root", DEBUG: "true" },
      n: 3,
      list: [`PASSWORD=x1`],
    };
    expect(redactor.value(input)).toEqual({
      command: `curl -H "Authorization: Bearer [REDACTED:auth-header]" x`,
      env: { API_KEY: "[REDACTED:secret]", HOME: "/root", DEBUG: "true" },
      n: 3,
      list: ["PASSWORD=[REDACTED:secret]"],
    });
  });
});

describe("custom patterns", () => {
  it("literal and regex patterns, with their own marker", () => {
    const custom = new Redactor([
      { id: "1", label: "Internal host", pattern: "db.internal.acme.corp", regex: false },
      { id: "2", label: "Employee IDs", pattern: "EMP-\\d{6}", regex: true },
    ]);
    expect(custom.redact("connect db.internal.acme.corp as EMP-123456").text).toBe(
      "connect [REDACTED:internal-host] as [REDACTED:employee-ids]",
    );
    // A literal is literal: the dots do not match other characters.
    expect(custom.redact("dbXinternalXacmeXcorp").text).toBe("dbXinternalXacmeXcorp");
  });

  it("run after the built-in rules and never cut a marker", () => {
    const custom = new Redactor([
      { id: "1", label: "proj", pattern: "proj", regex: false },
      { id: "2", label: "redacted", pattern: "REDACTED", regex: false },
    ]);
    expect(custom.redact(`${OPENAI} proj`).text).toBe("[REDACTED:openai-key] [REDACTED:proj]");
  });

  it("validation refuses what cannot run safely", () => {
    expect(validateCustomPattern("", false)).toMatch(/empty/);
    expect(validateCustomPattern("ab", false)).toMatch(/3 characters/);
    expect(validateCustomPattern("(unclosed", true)).toMatch(/valid regular expression/);
    expect(validateCustomPattern("a*", true)).toMatch(/empty text/);
    expect(validateCustomPattern("(a+)+b", true)).toMatch(/Nested quantifiers/);
    expect(validateCustomPattern("(\\w*)*x", true)).toMatch(/Nested quantifiers/);
    expect(validateCustomPattern("(a)\\1", true)).toMatch(/Back-references/);
    expect(validateCustomPattern("x".repeat(301), false)).toMatch(/longer/);
    expect(validateCustomPattern("ACME-[0-9]{4}", true)).toBeUndefined();
    expect(validateCustomPattern("(foo|bar)-\\d+", true)).toBeUndefined();
  });

  it("invalid stored patterns are skipped", () => {
    const custom = new Redactor([{ id: "1", label: "bad", pattern: "(a+)+", regex: true }]);
    expect(custom.custom).toHaveLength(0);
    expect(custom.redact("aaaa").text).toBe("aaaa");
  });

  it("labels become marker names", () => {
    expect(kindForLabel("Internal host!")).toBe("internal-host");
    expect(kindForLabel("***")).toBe("custom");
  });
});

describe("cost", () => {
  // No rule may backtrack quadratically: each of these takes milliseconds; a bad rule would hang
  // the test until its timeout.
  it("stays linear on long hostile inputs", { timeout: 30_000 }, () => {
    const inputs = [
      "a-".repeat(200_000),
      "A".repeat(400_000),
      "x=".repeat(200_000),
      `sk-${"a".repeat(400_000)}`,
      "-----BEGIN PRIVATE KEY-----".repeat(10_000),
      "eyJ".repeat(100_000),
      "token ".repeat(60_000),
      "https://".repeat(50_000),
    ];
    for (const s of inputs) expect(typeof r(s)).toBe("string");
  });

  it("entropy", () => {
    expect(entropy("aaaa")).toBe(0);
    expect(entropy("abcd")).toBe(2);
  });

  it("every rule has a kind that is a valid marker name", () => {
    for (const rule of BUILTIN_RULES) expect(rule.kind).toMatch(/^[a-z0-9][a-z0-9-]*$/);
  });
});

describe("exact values the console holds", () => {
  const token = "Qm9vdHN0cmFwVG9rZW4xMjM0NTY3ODkwYWJjZGVm";
  const password = "correct horse/battery+staple";
  const r = new Redactor([], [token, password]);
  it("removes them plain, base64- and URL-encoded, before any pattern", () => {
    const text = [
      `token ${token}`,
      `pw ${password}`,
      `b64 ${Buffer.from(token).toString("base64")}`,
      `b64 ${Buffer.from(password).toString("base64")}`,
      `basic ${Buffer.from(`user:${password}`).toString("base64")}`,
      `url ${encodeURIComponent(password)}`,
      `form ${encodeURIComponent(password).replace(/%20/g, "+")}`,
      `url ${encodeURIComponent(token)}`,
    ].join("\n");
    const out = r.text(text);
    expect(out).not.toContain(token);
    expect(out).not.toContain(password);
    expect(out).not.toContain(Buffer.from(password).toString("base64").slice(0, 20));
    expect(out).not.toContain(encodeURIComponent(password));
    expect(out).toContain("[REDACTED:console-secret]");
  });
  it("works in plain words too, where no pattern would look", () => {
    expect(r.text(`the value is ${password} ok`)).toBe("the value is [REDACTED:console-secret] ok");
  });
  it("without the built-in rules only exact values go", () => {
    const only = new Redactor([], [token], { builtin: false });
    expect(only.text(`API_KEY=sk-proj-abcdefghijklmnop1234 ${token}`)).toBe(
      "API_KEY=sk-proj-abcdefghijklmnop1234 [REDACTED:console-secret]",
    );
    expect(only.value({ token: "plain" })).toEqual({ token: "plain" });
  });
});

describe("exact values in wrapped base64 and hex (issue 39)", () => {
  const key = "sk-live-Zx81bQwe7Rt5yUi0pAsDf3Gh";
  const r = new Redactor([], [key], { builtin: false });
  /** `base64 -w cols` / `openssl base64`: the encoding cut into lines of `cols` characters. */
  const wrap = (s: string, cols: number) => (s.match(new RegExp(`.{1,${cols}}`, "g")) ?? []).join("\n");
  const blob = (prefix: string) =>
    Buffer.from(`${prefix}${"filler text before the key, long enough to wrap ".repeat(2)}${key} and after it`);
  it("base64 wrapped at 76 (coreutils) and 64 (openssl) columns, at every offset", () => {
    for (const cols of [76, 64]) {
      for (const prefix of ["", "a", "ab", "abc", "abcd", "abcde"]) {
        const enc = wrap(blob(prefix).toString("base64"), cols);
        expect(enc).toContain("\n");
        const out = r.text(enc);
        expect(out, `${cols} cols, prefix ${prefix.length}`).toContain("[REDACTED:console-secret]");
        // Nothing that encodes only the key's bits is left: decoding what stays finds no 8 characters of it.
        const left = Buffer.from(out.replace(/\[REDACTED:[a-z-]+\]/g, "\n").replace(/\s/g, ""), "base64").toString(
          "latin1",
        );
        expect(left).not.toContain(key.slice(8, 16));
      }
    }
  });
  it("CRLF-wrapped base64 (MIME)", () => {
    const enc = wrap(blob("xy").toString("base64"), 76).replace(/\n/g, "\r\n");
    expect(r.text(enc)).toContain("[REDACTED:console-secret]");
  });
  it("hex, lower- and upper-case, and `xxd -p` (60 columns)", () => {
    const hex = blob("q").toString("hex");
    for (const text of [hex, hex.toUpperCase(), wrap(hex, 60), `  ${Buffer.from(key).toString("hex")}  `]) {
      const out = r.text(text);
      expect(out).toContain("[REDACTED:console-secret]");
      expect(out.toLowerCase().replace(/\s/g, "")).not.toContain(Buffer.from(key).toString("hex").slice(0, 16));
    }
  });
  it("stays linear on hostile input for the wrapped forms", { timeout: 30_000 }, () => {
    const hexKey = Buffer.from(key).toString("hex");
    const inputs = [
      `${hexKey.slice(0, -2)}\n`.repeat(20_000),
      "7\n".repeat(200_000),
      `${Buffer.from(key).toString("base64").slice(0, 30)}\n`.repeat(20_000),
    ];
    for (const s of inputs) expect(typeof r.text(s)).toBe("string");
  });
});
