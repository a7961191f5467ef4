/**
 * The forms a known secret can take in text an agent printed (pure): the value itself, its
 * URL-encoded forms (`encodeURIComponent`, Python's `quote` that keeps `/`, form encoding with `+`,
 * lower-case hex), its base64 forms (standard and URL-safe) and its bytes in hex (lower- and
 * upper-case: `xxd -p`, `od`-free hex dumps, `hexdigest`-style printing of raw bytes).
 *
 * Base64 encodes three bytes at a time, so the encoding of a secret inside a longer value depends
 * on where it starts: for each of the three offsets, the characters that encode only the secret's
 * own bits are the same whatever surrounds it. Those cores are what is looked for, so
 * `base64("user:" + secret)` (an Authorization header) is caught as well as `base64(secret)`; the
 * one or two characters at each edge that mix in a neighbour's bits stay.
 */

/** A base64 core shorter than this is not looked for (too likely to occur by chance). */
const MIN_CORE = 8;

function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret, "utf8");
  const out: string[] = [];
  for (let k = 0; k < 3; k++) {
    const padded = Buffer.concat([Buffer.alloc(k), bytes]);
    const enc = padded.toString("base64");
    // Characters holding any of the k prefix bytes' bits; characters holding only the secret's bits end at floor(8n / 6).
    const skip = Math.ceil((k * 8) / 6);
    const end = Math.floor((padded.length * 8) / 6);
    const core = enc.slice(skip, end);
    if (core.length >= MIN_CORE) out.push(core);
  }
  return out;
}

const lowerHex = (s: string) => s.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());

/** Every form of `secret` to remove, longest first, without duplicates. */
export function secretForms(secret: string): string[] {
  if (!secret) return [];
  const forms = new Set<string>([secret]);
  const uri = encodeURIComponent(secret);
  for (const f of [uri, uri.replace(/%2F/g, "/"), uri.replace(/%20/g, "+")]) {
    forms.add(f);
    forms.add(lowerHex(f));
  }
  for (const core of base64Cores(secret)) {
    forms.add(core);
    forms.add(core.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  // Hex is byte-aligned: the secret's hex is in the hex of anything that holds it.
  const hex = Buffer.from(secret, "utf8").toString("hex");
  forms.add(hex);
  forms.add(hex.toUpperCase());
  return [...forms].sort((a, b) => b.length - a.length);
}
