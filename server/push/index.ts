import "server-only";
import { app } from "../app-access";
import { principalOf } from "../auth/console-auth";
import { requestPerson } from "../http";
import type { PushService } from "./service";
import type { PushViewer } from "./subscriptions";

/** The console's Web Push service (route handlers call this). */
export async function push(): Promise<PushService> {
  return (await app()).push;
}

/**
 * Whose devices a request may see and change (docs/push.md, "Whose devices"): the console token's
 * requests every device, a signed-in person's their own. Nobody named: nothing (the proxy lets no
 * such request through; deny by default all the same).
 */
export function pushViewer(req: Request): PushViewer {
  const who = principalOf(req.headers);
  if (who?.via === "token") return { all: true };
  const person = requestPerson(req);
  return { all: false, person: person ?? { id: "\u0000nobody", name: "" } };
}
