/**
 * Copilot's requests and their answers as interrupts: `permission.requested` → a permission,
 * `user_input.requested` (ask_user) → a question, `elicitation.requested` (MCP) → an input form, with
 * ids `perm_<requestId>`, `ask_<requestId>`, `form_<requestId>`; their `….completed` events resolve them.
 */
import { INTERRUPT_LIMITS } from "@/lib/interrupt-limits";
import type { InputField, InputSchema, Interrupt, TimelineEvent } from "@/lib/model";
import { arr, num, obj, str, type Obj } from "../shared/values";
import { clip, type CopilotEvent } from "./events";

const PERMISSION_OUTCOMES: Readonly<Record<string, string>> = {
  approved: "allow_once",
  "approve-once": "allow_once",
  "approved-for-session": "allow_always",
  "approve-for-session": "allow_always",
  "approved-for-location": "allow_always",
  "approve-permanently": "allow_always",
  "denied-interactively-by-user": "reject",
  reject: "reject",
  cancelled: "cancelled",
  "user-not-available": "cancelled",
};

function basename(p: string): string {
  return p.split("/").filter(Boolean).at(-1) ?? p;
}

/** A `permission.requested` event → a permission interrupt (undefined when a hook already decided it). */
export function permissionInterrupt(sessionId: string, ev: CopilotEvent): Interrupt | undefined {
  const d = ev.data;
  const requestId = str(d.requestId);
  if (!requestId || d.resolvedByHook === true) return undefined;
  const req = obj(d.permissionRequest);
  const prompt = obj(d.promptRequest);
  const kind = str(req.kind) ?? str(prompt.kind) ?? "unknown";
  const toolCallId = str(req.toolCallId) ?? str(prompt.toolCallId);
  const intention = str(req.intention) ?? str(prompt.intention);
  let action = kind;
  let patterns: string[] = [];
  let title = intention ?? `Permission: ${kind}`;
  let path: string | undefined;
  let diff: string | undefined;
  switch (kind) {
    case "shell": {
      const cmd = str(req.fullCommandText) ?? str(prompt.fullCommandText) ?? "";
      action = "bash";
      patterns = cmd ? [cmd] : [];
      title = `Run ${clip(cmd || intention || "a command")}`;
      break;
    }
    case "write": {
      const file = str(req.fileName) ?? str(prompt.fileName) ?? "";
      action = "edit";
      patterns = file ? [file] : [];
      title = `${intention ?? "Edit file"}: ${basename(file)}`;
      path = file || undefined;
      const d0 = str(req.diff) ?? str(prompt.diff);
      diff = d0 ? d0.replace(/^\n+/, "") : undefined;
      break;
    }
    case "read": {
      const file = str(req.path) ?? str(prompt.path) ?? "";
      action = "read";
      patterns = file ? [file] : [];
      title = `Read ${basename(file) || "a file"}`;
      break;
    }
    case "mcp": {
      const server = str(req.serverName) ?? str(prompt.serverName) ?? "mcp";
      const tool = str(req.toolTitle) ?? str(prompt.toolTitle) ?? str(prompt.toolName) ?? str(req.toolName) ?? "a tool";
      action = "mcp";
      patterns = [`${server}: ${str(prompt.toolName) ?? str(req.toolName) ?? tool}`];
      title = `Use ${tool} (${server})`;
      break;
    }
    case "url": {
      const url = str(req.url) ?? str(prompt.url) ?? "";
      action = "webfetch";
      patterns = url ? [url] : [];
      title = `Fetch ${clip(url)}`;
      break;
    }
    case "custom-tool": {
      const tool = str(req.toolName) ?? "a tool";
      action = tool;
      patterns = [tool];
      title = `Use ${tool}`;
      break;
    }
    default:
      patterns = intention ? [intention] : [kind];
  }
  const session = req.canOfferSessionApproval === true || prompt.canOfferSessionApproval === true;
  return {
    id: `perm_${requestId}`,
    sessionId,
    kind: "permission",
    ...(toolCallId ? { toolCallId } : {}),
    createdAt: ev.timestamp,
    title,
    permission: {
      action,
      patterns,
      options: [
        { id: "approve-once", label: "Allow once", kind: "allow_once" },
        ...(session
          ? [{ id: "approve-for-session", label: "Allow for this session", kind: "allow_always" as const }]
          : []),
        { id: "reject", label: "Reject", kind: "reject" },
      ],
      ...(path ? { path } : {}),
      ...(diff ? { diff } : {}),
    },
  };
}

/** A `user_input.requested` event (or the `userInput.request` params) → a question interrupt. */
export function questionInterrupt(sessionId: string, id: string, data: Obj, createdAt: number): Interrupt | undefined {
  const question = str(data.question);
  if (!question) return undefined;
  const choices = arr(data.choices).filter((c): c is string => typeof c === "string");
  const toolCallId = str(data.toolCallId);
  return {
    id,
    sessionId,
    kind: "question",
    ...(toolCallId ? { toolCallId } : {}),
    createdAt,
    title: clip(question),
    // Copilot's ask_user takes one answer: a choice, or free text when allowed (the default).
    questions: [
      {
        question,
        options: choices.map((label) => ({ label })),
        custom: data.allowFreeform !== false || choices.length === 0,
      },
    ],
  };
}

/** The actions of `exitPlanMode.request` (`ExitPlanModeAction`) that leave Plan mode for a mode, most wanted first. */
const PLAN_EXITS = ["interactive", "autopilot"] as const;

/**
 * An `exitPlanMode.request`'s params (`{summary, planContent?, actions, recommendedAction}`,
 * @github/copilot 1.0.102 copilot-sdk/types.d.ts `ExitPlanModeRequest`) → a question showing the
 * plan (markdown: the model's summary, then the plan file when it says more) with Accept and Keep
 * planning, own words being feedback; and the action Accept answers with: interactive mode when
 * offered (it keeps asking before tools), else autopilot, else what the CLI recommends.
 */
export function planInterrupt(
  sessionId: string,
  id: string,
  data: Obj,
  createdAt: number,
): { interrupt: Interrupt; accept: string | undefined } | undefined {
  const summary = str(data.summary)?.trim() ?? "";
  const content = str(data.planContent)?.trim() ?? "";
  if (!summary && !content) return undefined;
  const full = content && content !== summary ? (summary ? `${summary}\n\n---\n\n${content}` : content) : summary;
  // Within the console's bounds (lib/interrupt-limits.ts), or the plan would be refused: a plan
  // file too long to show leaves the summary, and a summary too long is cut.
  const max = INTERRUPT_LIMITS.maxText;
  const note = "\n\n*(The full plan is too long to show here.)*";
  const text = full.length <= max ? full : `${(summary || content).slice(0, max - note.length)}${note}`;
  const actions = arr(data.actions).filter((a): a is string => typeof a === "string");
  const recommended = str(data.recommendedAction);
  const accept =
    PLAN_EXITS.find((a) => actions.includes(a)) ??
    (recommended && recommended !== "exit_only" ? recommended : undefined) ??
    actions[0];
  return {
    accept,
    interrupt: {
      id,
      sessionId,
      kind: "question",
      createdAt,
      title: "Review the plan",
      questions: [
        {
          header: "Plan",
          question: text,
          markdown: true,
          options: [
            { label: "Accept", description: "Leave Plan mode; the agent carries on with the plan" },
            { label: "Keep planning", description: "Stay in Plan mode; write below what to change" },
          ],
          custom: true,
        },
      ],
    },
  };
}

const FORMATS = new Set(["email", "uri", "date", "date-time"]);

/**
 * MCP's `requestedSchema` → the form schema the console renders (lib/model.ts `InputSchema`).
 * Strings (with `enum`/`enumNames`, or titled `oneOf: [{const, title}]`, and a format), numbers,
 * integers and booleans are kept; other fields (arrays, objects) cannot be filled in here and are
 * left out. Undefined when nothing is left.
 */
export function toInputSchema(raw: unknown): InputSchema | undefined {
  const s = obj(raw);
  const props = obj(s.properties);
  const required = new Set(arr(s.required).filter((r): r is string => typeof r === "string"));
  const properties: Record<string, InputField> = {};
  for (const [name, v] of Object.entries(props)) {
    const p = obj(v);
    const type = str(p.type);
    if (type !== "string" && type !== "number" && type !== "integer" && type !== "boolean") continue;
    const f: InputField = { type };
    const title = str(p.title);
    const description = str(p.description);
    if (title) f.title = title;
    if (description) f.description = description;
    if (type === "string") {
      const en = arr(p.enum).filter((x): x is string => typeof x === "string");
      const oneOf = arr(p.oneOf)
        .map(obj)
        .filter((o) => typeof o.const === "string");
      if (en.length > 0) {
        f.enum = en;
        const names = arr(p.enumNames).filter((x): x is string => typeof x === "string");
        if (names.length === en.length) f.enumNames = names;
      } else if (oneOf.length > 0) {
        f.enum = oneOf.map((o) => o.const as string);
        f.enumNames = oneOf.map((o) => str(o.title) ?? (o.const as string));
      }
      const format = str(p.format);
      if (format && FORMATS.has(format)) f.format = format as NonNullable<InputField["format"]>;
      const minLength = num(p.minLength);
      const maxLength = num(p.maxLength);
      if (minLength !== undefined && Number.isInteger(minLength) && minLength >= 0) f.minLength = minLength;
      if (maxLength !== undefined && Number.isInteger(maxLength) && maxLength >= 0) f.maxLength = maxLength;
    } else if (type !== "boolean") {
      const minimum = num(p.minimum);
      const maximum = num(p.maximum);
      if (minimum !== undefined) f.minimum = minimum;
      if (maximum !== undefined) f.maximum = maximum;
    }
    const def = p.default;
    if (
      (type === "boolean" && typeof def === "boolean") ||
      (type === "string" && typeof def === "string") ||
      ((type === "number" || type === "integer") && typeof def === "number")
    )
      f.default = def;
    properties[name] = f;
  }
  if (Object.keys(properties).length === 0) return undefined;
  const req = [...required].filter((r) => r in properties);
  return { type: "object", properties, ...(req.length ? { required: req } : {}) };
}

/** An `elicitation.requested` event → an input interrupt (a form, or for `mode: "url"` a prompt with the link). */
export function formInterrupt(sessionId: string, ev: CopilotEvent): Interrupt | undefined {
  const d = ev.data;
  const requestId = str(d.requestId);
  const message = str(d.message) ?? "";
  if (!requestId) return undefined;
  const toolCallId = str(d.toolCallId);
  const url = str(d.url);
  const schema = str(d.mode) === "url" ? undefined : toInputSchema(d.requestedSchema);
  const source = str(d.elicitationSource);
  return {
    id: `form_${requestId}`,
    sessionId,
    kind: "input",
    ...(toolCallId ? { toolCallId } : {}),
    createdAt: ev.timestamp,
    title: clip(message || `${source ?? "A tool"} asks for input`),
    input: { prompt: url ? `${message}\n${url}`.trim() : message, ...(schema ? { schema } : {}) },
  };
}

/**
 * The interrupt events of a request or answer event (`interrupt.requested`, `interrupt.resolved`);
 * undefined for an event that is neither.
 */
export function interruptEvents(sessionId: string, ev: CopilotEvent): TimelineEvent[] | undefined {
  const d = ev.data;
  switch (ev.type) {
    case "permission.requested": {
      const it = permissionInterrupt(sessionId, ev);
      return it ? [{ type: "interrupt.requested", interrupt: it }] : [];
    }
    case "permission.completed": {
      const requestId = str(d.requestId);
      if (!requestId) return [];
      const kind = str(obj(d.result).kind) ?? "answered";
      return [
        { type: "interrupt.resolved", interruptId: `perm_${requestId}`, outcome: PERMISSION_OUTCOMES[kind] ?? kind },
      ];
    }
    case "user_input.requested": {
      const requestId = str(d.requestId);
      const it = requestId ? questionInterrupt(sessionId, `ask_${requestId}`, d, ev.timestamp) : undefined;
      return it ? [{ type: "interrupt.requested", interrupt: it }] : [];
    }
    case "user_input.completed": {
      const requestId = str(d.requestId);
      return requestId ? [{ type: "interrupt.resolved", interruptId: `ask_${requestId}`, outcome: "answered" }] : [];
    }
    case "elicitation.requested": {
      const it = formInterrupt(sessionId, ev);
      return it ? [{ type: "interrupt.requested", interrupt: it }] : [];
    }
    case "elicitation.completed": {
      const requestId = str(d.requestId);
      const action = str(d.action) ?? "answered";
      return requestId ? [{ type: "interrupt.resolved", interruptId: `form_${requestId}`, outcome: action }] : [];
    }
    default:
      return undefined;
  }
}
