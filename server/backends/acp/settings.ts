/**
 * ACP session settings (./normalize.ts): `configOptions` and modes as the options shown to the user,
 * and the session's model derived from them.
 */
import type { ModelRef, Session, SessionOption, SessionSettings, TimelineEvent } from "@/lib/model";
import { arr, obj, str } from "../shared/values";
import type { AcpSessionState } from "./session-state";

function selectChoices(options: unknown): SessionOption["choices"] {
  const out: SessionOption["choices"] = [];
  for (const o of arr(options)) {
    const x = obj(o);
    if (Array.isArray(x.options)) {
      // a group of options: flatten, keeping the group's name as a prefix
      const group = str(x.name);
      for (const g of x.options) {
        const y = obj(g);
        const value = str(y.value);
        if (value !== undefined)
          out.push({
            value,
            name: group ? `${group}: ${str(y.name) ?? value}` : (str(y.name) ?? value),
            ...(str(y.description) ? { description: str(y.description)! } : {}),
          });
      }
      continue;
    }
    const value = str(x.value);
    if (value !== undefined)
      out.push({
        value,
        name: str(x.name) ?? value,
        ...(str(x.description) ? { description: str(x.description)! } : {}),
      });
  }
  return out;
}

/** ACP `configOptions` → canonical options (select and boolean; others are ignored). */
export function toConfigOptions(raw: unknown): SessionOption[] {
  const out: SessionOption[] = [];
  for (const o of arr(raw)) {
    const x = obj(o);
    const id = str(x.id);
    if (!id) continue;
    const base = {
      id,
      name: str(x.name) ?? id,
      source: "config" as const,
      ...(str(x.description) ? { description: str(x.description)! } : {}),
      ...(str(x.category) ? { category: str(x.category)! } : {}),
    };
    if (x.type === "boolean" && typeof x.currentValue === "boolean") {
      out.push({ ...base, type: "boolean", value: x.currentValue, choices: [] });
    } else if ((x.type === "select" || x.type === undefined) && typeof x.currentValue === "string") {
      out.push({ ...base, type: "select", value: x.currentValue, choices: selectChoices(x.options) });
    }
  }
  return out;
}

function toModes(raw: unknown): AcpSessionState["modes"] | undefined {
  const m = obj(raw);
  const current = str(m.currentModeId);
  if (!current) return undefined;
  const available = arr(m.availableModes).flatMap((x) => {
    const o = obj(x);
    const id = str(o.id);
    return id
      ? [{ id, name: str(o.name) ?? id, ...(str(o.description) ? { description: str(o.description)! } : {}) }]
      : [];
  });
  return { current, available };
}

/** The options shown to the user: config options, plus the modes when no config option already is the mode. */
export function settingsOf(state: AcpSessionState): SessionSettings {
  const options = [...state.config];
  if (state.modes && !state.config.some((o) => o.category === "mode")) {
    options.unshift({
      id: "mode",
      name: "Mode",
      source: "mode",
      category: "mode",
      type: "select",
      value: state.modes.current,
      choices: state.modes.available.map((m) => ({
        value: m.id,
        name: m.name,
        ...(m.description ? { description: m.description } : {}),
      })),
    });
  }
  return { options, ...(state.commands ? { commands: state.commands } : {}) };
}

function modelOf(state: AcpSessionState): ModelRef | undefined {
  const opt = state.config.find((o) => o.category === "model" && typeof o.value === "string");
  if (!opt || typeof opt.value !== "string" || !opt.value) return undefined;
  const slash = opt.value.indexOf("/");
  return slash > 0 ? { provider: opt.value.slice(0, slash), id: opt.value.slice(slash + 1) } : { id: opt.value };
}

/** Re-derives the session's settings and model; emits `session.updated` only when something changed. */
export function sessionChanged(state: AcpSessionState, patch: Partial<Session> = {}): TimelineEvent[] {
  const prev = state.session;
  const next: Session = { ...prev, ...patch, settings: settingsOf(state) };
  const model = modelOf(state);
  if (model) next.model = model;
  if (JSON.stringify(next) === JSON.stringify(prev)) return [];
  state.session = next;
  return [{ type: "session.updated", session: next }];
}

/** ACP `availableCommands` (an `available_commands_update`'s, or a v2 setup result's) → slash commands. */
export function toCommands(raw: unknown): NonNullable<AcpSessionState["commands"]> {
  return arr(raw).flatMap((c) => {
    const o = obj(c);
    const name = str(o.name);
    const hint = str(obj(o.input).hint);
    return name
      ? [
          {
            name,
            ...(str(o.description) ? { description: str(o.description)!.slice(0, 300) } : {}),
            ...(hint ? { hint } : {}),
          },
        ]
      : [];
  });
}

/**
 * The `modes` / `configOptions` of a `session/new`, `session/load` or `set_config_option` result
 * (and a v2 setup result's `availableCommands`, which v1 sends as an update).
 */
export function applySessionSetup(state: AcpSessionState, result: unknown): TimelineEvent[] {
  const r = obj(result);
  if (r.modes !== undefined && r.modes !== null) {
    const modes = toModes(r.modes);
    if (modes) state.modes = modes;
  }
  if (Array.isArray(r.configOptions)) state.config = toConfigOptions(r.configOptions);
  if (Array.isArray(r.availableCommands)) state.commands = toCommands(r.availableCommands);
  return sessionChanged(state);
}

/** A local rename: the title is kept and the agent's own titles are ignored from now on. */
export function renameSession(state: AcpSessionState, title: string, now: number): TimelineEvent[] {
  state.titleLocked = true;
  return sessionChanged(state, { title, updatedAt: now });
}
