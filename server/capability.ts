import "server-only";
import { capabilityReason, type CapabilityName } from "@/lib/capabilities";
import type { BackendAdapter } from "./backends/types";
import { ApiError } from "./errors";

/**
 * The adapter's implementation of a capability, bound to it — or a 409 with the reason when the
 * backend does not declare the capability (lib/capabilities.ts words it; docs/api.md, "Capabilities"). Routes call this before acting.
 */
export function capability<A extends unknown[], R>(
  adapter: BackendAdapter,
  cap: CapabilityName,
  fn: ((...args: A) => R) | undefined,
): (...args: A) => R {
  const info = adapter.info();
  if (info.capabilities[cap] !== true || !fn) {
    throw ApiError.conflict(capabilityReason(info.label, cap), { capability: cap });
  }
  return fn.bind(adapter);
}
