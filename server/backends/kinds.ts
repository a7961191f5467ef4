import "server-only";
import type { BackendDefinition, BackendPreset } from "@/lib/api";
import type { BackendKind } from "@/lib/model";
import { ApiError } from "../errors";
import { a2aKind } from "./a2a/kind";
import { acpKind } from "./acp/kind";
import { copilotKind } from "./copilot/kind";
import { opalKind } from "./opal/kind";
import { opencodeKind } from "./opencode/kind";
import type { KindEntry } from "./shared/kind";
import { zotKind } from "./zot/kind";

/**
 * The kind table: one entry per backend kind this console can run. The registry
 * (./registry.ts), the workspace confinement of a browser-sent definition (`confineBackendDirs`)
 * and the settings page (`GET /api/backends/presets`, `GET /api/backends/kinds`) read it; nothing
 * else compares a backend's `kind` to a literal.
 *
 * Adding a kind: docs/architecture.md, "Adding a backend kind".
 */
const KINDS: Partial<Record<BackendKind, KindEntry>> = {
  opencode: opencodeKind,
  acp: acpKind,
  copilot: copilotKind,
  zot: zotKind,
  a2a: a2aKind,
  opal: opalKind,
};

/** The table entry of `kind`; 400 when this console cannot run it. */
export function kindEntry(kind: BackendKind): KindEntry {
  const entry = KINDS[kind];
  if (!entry) throw ApiError.badRequest(`Backend kind "${kind}" is not available in this version of the console`);
  return entry;
}

/** Every kind this console can run. */
export function kindEntries(): KindEntry[] {
  return Object.values(KINDS);
}

/**
 * The directories a backend sent by a browser would run in (the kind's `directories`: an embedded
 * OpenCode's `directory`, a stdio agent's `cwd`) resolved and confined exactly like a session
 * directory (403 outside the roots, symlinks included; 400 when missing). A stdio agent treats
 * its `cwd` as a root of its own for its sessions and its file reads, so it must not widen the
 * workspace. Returns the definition with the real paths. Backends from `SWITCHBOARD_BACKENDS` are
 * the operator's and are not passed through this. A kind this console cannot run is returned as is
 * (creating it answers 400).
 */
export async function confineBackendDirs(def: BackendDefinition, roots: readonly string[]): Promise<BackendDefinition> {
  const entry = KINDS[def.kind];
  return entry ? entry.confine(def, roots) : def;
}

/** The presets of every kind, each marked available when its binary is installed. */
export function detectPresets(): BackendPreset[] {
  return kindEntries().flatMap((k) => k.presets());
}
