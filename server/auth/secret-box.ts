import "server-only";
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * Encryption at rest of the secrets the console keeps in its store (docs/security.md, "Secrets at
 * rest"): AES-256-GCM (node:crypto), a random 96-bit nonce per value, in a versioned envelope
 *
 *     enc:v1:<key id>:<base64(nonce ‖ ciphertext ‖ tag)>
 *
 * The key id (8 hex characters of a SHA-256 of the key) says which key sealed a value, so a value
 * sealed under another key is named as such instead of failing as "corrupt". The key never sits in
 * the store: `SWITCHBOARD_SECRET_KEY` (32 bytes, base64), else a key file generated in the data
 * directory at first start (mode 0600). `SWITCHBOARD_SECRET_KEY_PREVIOUS` holds the key being
 * rotated away from: values under it are opened, and sealed again under the current key at start.
 */

export const SECRET_KEY_VAR = "SWITCHBOARD_SECRET_KEY";
export const PREVIOUS_KEY_VAR = "SWITCHBOARD_SECRET_KEY_PREVIOUS";
/** The key file in the data directory when `SWITCHBOARD_SECRET_KEY` is not set. */
export const SECRET_KEY_FILE = "secret-key";

const PREFIX = "enc:v1:";
const ENVELOPE = /^enc:v1:([0-9a-f]{8}):([A-Za-z0-9+/]+={0,2})$/;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** A key that is missing, malformed or not the one a stored value was sealed with: its sentence names the variable. */
export class SecretKeyError extends Error {
  override name = "SecretKeyError";
}

export interface SecretKey {
  id: string;
  key: Buffer;
}

export function secretKey(key: Buffer): SecretKey {
  const id = createHash("sha256").update("switchboard/secret-key-id/v1").update(key).digest("hex").slice(0, 8);
  return { id, key };
}

/** A new random key, base64 (for `SWITCHBOARD_SECRET_KEY` or the key file). */
export function generateSecretKey(): string {
  return randomBytes(32).toString("base64");
}

/** 32 bytes from base64 (standard or URL-safe), or a sentence naming `where`. */
function parseKey(value: string, where: string): SecretKey {
  const v = value.trim();
  const bytes = /^[A-Za-z0-9+/_-]+={0,2}$/.test(v) ? Buffer.from(v, "base64") : Buffer.alloc(0);
  if (bytes.length !== 32)
    throw new SecretKeyError(
      `${where} must be 32 random bytes in base64 (44 characters; make one with \`openssl rand -base64 32\`)`,
    );
  return secretKey(bytes);
}

export class SecretBox {
  private readonly keys: Map<string, SecretKey>;

  /** `current` seals; `current` and `previous` open. */
  constructor(
    readonly current: SecretKey,
    previous: readonly SecretKey[] = [],
    /** Where the current key comes from, for error sentences. */
    private readonly source: string = SECRET_KEY_VAR,
  ) {
    this.keys = new Map([...previous, current].map((k) => [k.id, k]));
  }

  /** Whether a stored value is an envelope (else it is a plaintext value from before encryption). */
  static isSealed(value: string): boolean {
    return value.startsWith(PREFIX);
  }

  seal(plain: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.current.key, nonce);
    cipher.setAAD(Buffer.from(`${PREFIX}${this.current.id}`));
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return `${PREFIX}${this.current.id}:${Buffer.concat([nonce, body, cipher.getAuthTag()]).toString("base64")}`;
  }

  /**
   * The plaintext of a stored value. A value that is not an envelope is a plaintext one from before
   * encryption and comes back as it is. One sealed under a key this box does not hold, or that does
   * not authenticate, is a `SecretKeyError` that names the variable.
   */
  open(value: string): string {
    if (!SecretBox.isSealed(value)) return value;
    const m = ENVELOPE.exec(value);
    if (!m) throw new SecretKeyError("a stored secret is damaged (its envelope is malformed)");
    const [, id, b64] = m as unknown as [string, string, string];
    const key = this.keys.get(id);
    if (!key)
      throw new SecretKeyError(
        `a stored secret was encrypted with another key (key id ${id}; ${this.source} has key id ${this.current.id}): ` +
          `set ${SECRET_KEY_VAR} to the key it was encrypted with, or give that key in ${PREVIOUS_KEY_VAR} to encrypt it again under the new one`,
      );
    const raw = Buffer.from(b64, "base64");
    if (raw.length < NONCE_BYTES + TAG_BYTES) throw new SecretKeyError("a stored secret is damaged (too short)");
    try {
      const decipher = createDecipheriv("aes-256-gcm", key.key, raw.subarray(0, NONCE_BYTES));
      decipher.setAAD(Buffer.from(`${PREFIX}${id}`));
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      return Buffer.concat([
        decipher.update(raw.subarray(NONCE_BYTES, raw.length - TAG_BYTES)),
        decipher.final(),
      ]).toString("utf8");
    } catch {
      throw new SecretKeyError(
        `a stored secret does not decrypt with the key of id ${id} (${SECRET_KEY_VAR} / ${PREVIOUS_KEY_VAR}): it was changed or damaged`,
      );
    }
  }

  /** Whether a stored value should be sealed again under the current key: plaintext, or under a previous key. */
  needsReseal(value: string): boolean {
    return !value.startsWith(`${PREFIX}${this.current.id}:`);
  }
}

/**
 * The console's box: `SWITCHBOARD_SECRET_KEY` (required in replica mode, where every replica must
 * open what another sealed), else the key file in the data directory, generated at first start
 * (created exclusively, mode 0600, so two processes starting at once agree on one key).
 */
export function loadSecretBox(opts: {
  env?: Readonly<Record<string, string | undefined>>;
  dataDir: string;
  replicaMode: boolean;
}): SecretBox {
  const env = opts.env ?? process.env;
  const previous = env[PREVIOUS_KEY_VAR]?.trim()
    ? env[PREVIOUS_KEY_VAR]
        .split(",")
        .filter((k) => k.trim())
        .map((k) => parseKey(k, PREVIOUS_KEY_VAR))
    : [];
  const fromEnv = env[SECRET_KEY_VAR]?.trim();
  if (fromEnv) return new SecretBox(parseKey(fromEnv, SECRET_KEY_VAR), previous, SECRET_KEY_VAR);
  if (opts.replicaMode)
    throw new SecretKeyError(
      `replica mode (SWITCHBOARD_REDIS_URL) needs ${SECRET_KEY_VAR}: every replica must decrypt the secrets another stored, so they share one key (make one with \`openssl rand -base64 32\`)`,
    );
  const file = path.join(opts.dataDir, SECRET_KEY_FILE);
  return new SecretBox(parseKey(readOrCreateKeyFile(file), `the key file ${file}`), previous, `the key file ${file}`);
}

function readOrCreateKeyFile(file: string): string {
  const read = () => {
    try {
      return fs.readFileSync(file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw new SecretKeyError(`cannot read the key file ${file}: ${(err as Error).message}`);
    }
  };
  const existing = read();
  if (existing !== undefined) return existing;
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const key = generateSecretKey();
  try {
    fs.writeFileSync(file, `${key}\n`, { flag: "wx", mode: 0o600 });
    return key;
  } catch (err) {
    // Another process created it first: use theirs.
    const raced = (err as NodeJS.ErrnoException).code === "EEXIST" ? read() : undefined;
    if (raced !== undefined) return raced;
    throw new SecretKeyError(`cannot create the key file ${file}: ${(err as Error).message}`);
  }
}
