import "server-only";
import { PersonRef } from "@/lib/model";

/**
 * Who a request acts for, as route handlers see it (docs/people.md, "Attribution"): the signed-in
 * person, or — on the replica a request was forwarded to — the person the forwarding replica
 * vouched for in `ACTING_PERSON_HEADER`. The route wrapper (server/http.ts) decides which and
 * remembers it per request; the forwarder (server/replicas/forward.ts) always writes the header
 * itself from that, so a browser's own is never passed on, and the header is believed only on a
 * request whose replica signature was checked.
 */
export const ACTING_PERSON_HEADER = "x-switchboard-acting-person";

const persons = new WeakMap<Request, PersonRef>();

export function setActingPerson(req: Request, who: PersonRef | undefined): void {
  if (who) persons.set(req, who);
  else persons.delete(req);
}

export function actingPerson(req: Request): PersonRef | undefined {
  return persons.get(req);
}

export function encodeActingPerson(who: PersonRef): string {
  return Buffer.from(JSON.stringify(who), "utf8").toString("base64url");
}

/** The person a replica named; undefined when absent or malformed. Only for a signed request. */
export function decodeActingPerson(raw: string | null): PersonRef | undefined {
  if (!raw) return undefined;
  try {
    const parsed = PersonRef.safeParse(JSON.parse(Buffer.from(raw, "base64url").toString("utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
