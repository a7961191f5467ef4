import "server-only";
import type { ZodError } from "zod";
import type { ErrorCode } from "@/lib/api";

const STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  gone: 410,
  upstream_failed: 502,
  backend_down: 503,
  internal: 500,
};

const BRAND = Symbol.for("switchboard.ApiError");

/** The one typed error every route maps to the JSON error shape `{error: {code, message, details?}}`. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details: unknown;
  readonly [BRAND] = true;
  constructor(code: ErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.details = details;
  }
  get status(): number {
    return STATUS[this.code];
  }
  static badRequest(message: string, details?: unknown) {
    return new ApiError("bad_request", message, details);
  }
  static notFound(message: string) {
    return new ApiError("not_found", message);
  }
  static conflict(message: string, details?: unknown) {
    return new ApiError("conflict", message, details);
  }
  static upstream(message: string, details?: unknown) {
    return new ApiError("upstream_failed", message, details);
  }
  static down(message: string) {
    return new ApiError("backend_down", message);
  }
  static fromZod(err: ZodError, what = "request") {
    const issues = err.issues.map((i) => ({ path: i.path.join("."), message: i.message, code: i.code }));
    const first = issues[0];
    const msg = first ? `Invalid ${what}: ${first.path ? `${first.path}: ` : ""}${first.message}` : `Invalid ${what}`;
    return new ApiError("bad_request", msg, { issues });
  }
}

/**
 * True for an ApiError from any bundle: Next compiles instrumentation and each route separately, so
 * `instanceof` is not reliable for errors thrown by the shared singleton.
 */
export function isApiError(err: unknown): err is ApiError {
  return typeof err === "object" && err !== null && (err as Record<symbol, unknown>)[BRAND] === true;
}

/** A short, stack-free description of an unknown thrown value. */
export function describeError(err: unknown): string {
  if (err instanceof Error) return err.message.split("\n")[0]!.slice(0, 500);
  if (typeof err === "string") return err.slice(0, 500);
  try {
    return JSON.stringify(err).slice(0, 500);
  } catch {
    return "Unknown error";
  }
}
