import "server-only";
import { app } from "../app-access";
import type { PushService } from "./service";

/** The console's Web Push service (route handlers call this). */
export async function push(): Promise<PushService> {
  return (await app()).push;
}
