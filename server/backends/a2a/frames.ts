/**
 * What the SDK's client hands back (A2A 1.0 objects: `StreamResponse`, `Task`, `Message`, status
 * and artifact updates; a 0.3 agent's answers arrive already translated by the SDK's compat layer)
 * as the frames ./normalize.ts reads: plain objects with a `kind` (`task`, `message`,
 * `status-update`, `artifact-update`), states by name, parts as `{kind: text | data | file}`. Pure
 * and defensive: anything unreadable becomes an empty frame, never an exception. A 0.3-shaped value
 * (it already has a `kind`) passes through, so the normalizer's own tests keep their frames.
 */
import { arr, isObj, obj, str, type Obj } from "../shared/values";

/** A2A 1.0 `TaskState` numbers, by name (the SDK's protobuf enum). */
const STATE_NAMES: Record<number, string> = {
  0: "unknown",
  1: "submitted",
  2: "working",
  3: "completed",
  4: "failed",
  5: "canceled",
  6: "input-required",
  7: "rejected",
  8: "auth-required",
};

function stateName(v: unknown): string {
  if (typeof v === "number") return STATE_NAMES[v] ?? "unknown";
  return str(v) ?? "unknown";
}

/** A 1.0 part (`content: {$case, value}`, or the JSON form `{text}` / `{data}` / `{url}` / `{raw}`) as a 0.3 part. */
export function toPart(p: unknown): Obj {
  const o = obj(p);
  if (typeof o.kind === "string") return o;
  const content = obj(o.content);
  const which =
    str(content.$case) ??
    (typeof o.text === "string"
      ? "text"
      : "data" in o
        ? "data"
        : typeof o.url === "string"
          ? "url"
          : "raw" in o
            ? "raw"
            : undefined);
  const value = content.$case !== undefined ? content.value : which ? o[which] : undefined;
  const name = str(o.filename) || undefined;
  const mimeType = str(o.mediaType) || undefined;
  const meta = isObj(o.metadata) ? { metadata: o.metadata } : {};
  switch (which) {
    case "text":
      return { kind: "text", text: typeof value === "string" ? value : "", ...meta };
    case "data":
      return { kind: "data", data: value ?? null, ...meta };
    case "url":
      return {
        kind: "file",
        file: { uri: str(value) ?? "", ...(name ? { name } : {}), ...(mimeType ? { mimeType } : {}) },
        ...meta,
      };
    case "raw": {
      const bytes = value instanceof Uint8Array ? Buffer.from(value).toString("base64") : (str(value) ?? "");
      return { kind: "file", file: { bytes, ...(name ? { name } : {}), ...(mimeType ? { mimeType } : {}) }, ...meta };
    }
    default:
      return { kind: "unknown" };
  }
}

function toMessage(m: unknown): Obj {
  const o = obj(m);
  const role = o.role === 1 || o.role === "ROLE_USER" || o.role === "user" ? "user" : "agent";
  return {
    kind: "message",
    messageId: str(o.messageId) ?? "",
    role,
    parts: arr(o.parts).map(toPart),
    ...(str(o.taskId) ? { taskId: o.taskId } : {}),
    ...(str(o.contextId) ? { contextId: o.contextId } : {}),
    ...(isObj(o.metadata) ? { metadata: o.metadata } : {}),
  };
}

function toStatus(s: unknown): Obj {
  const o = obj(s);
  return {
    state: stateName(o.state),
    ...(isObj(o.message) ? { message: toMessage(o.message) } : {}),
    ...(str(o.timestamp) ? { timestamp: o.timestamp } : {}),
  };
}

function toArtifact(a: unknown): Obj {
  const o = obj(a);
  return {
    artifactId: str(o.artifactId) ?? "",
    ...(str(o.name) ? { name: o.name } : {}),
    parts: arr(o.parts).map(toPart),
    ...(isObj(o.metadata) ? { metadata: o.metadata } : {}),
  };
}

const TERMINAL = new Set(["completed", "failed", "canceled", "rejected"]);

function fromCase(kind: string, value: unknown): Obj {
  const v = obj(value);
  switch (kind) {
    case "task":
      return {
        kind: "task",
        id: str(v.id) ?? "",
        contextId: str(v.contextId) ?? "",
        status: toStatus(v.status),
        artifacts: arr(v.artifacts).map(toArtifact),
        ...(isObj(v.metadata) ? { metadata: v.metadata } : {}),
      };
    case "message":
      return toMessage(v);
    case "statusUpdate": {
      const status = toStatus(v.status);
      // 1.0 has no `final`: a terminal state is the end of the stream.
      return {
        kind: "status-update",
        taskId: str(v.taskId) ?? "",
        contextId: str(v.contextId) ?? "",
        status,
        final: TERMINAL.has(String(status.state)),
        ...(isObj(v.metadata) ? { metadata: v.metadata } : {}),
      };
    }
    case "artifactUpdate":
      return {
        kind: "artifact-update",
        taskId: str(v.taskId) ?? "",
        contextId: str(v.contextId) ?? "",
        artifact: toArtifact(v.artifact),
        append: v.append === true,
        lastChunk: v.lastChunk === true,
        ...(isObj(v.metadata) ? { metadata: v.metadata } : {}),
      };
    default:
      return {};
  }
}

/**
 * One value from the SDK (a stream item, the result of `sendMessage`, `getTask` or `cancelTask`) as
 * a frame for the normalizer.
 */
export function toFrame(v: unknown): Obj {
  const o = obj(v);
  if (typeof o.kind === "string") return o; // already a 0.3 frame
  const payload = obj(o.payload);
  if (typeof payload.$case === "string") return fromCase(payload.$case, payload.value);
  for (const k of ["task", "message", "statusUpdate", "artifactUpdate"] as const)
    if (isObj(o[k])) return fromCase(k, o[k]);
  if (typeof o.messageId === "string" && Array.isArray(o.parts)) return toMessage(o);
  if (typeof o.id === "string" && "status" in o) return fromCase("task", o);
  return {};
}
