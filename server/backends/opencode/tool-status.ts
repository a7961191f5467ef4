import type { ToolStatus } from "@/lib/model";

/** The words of a failed tool's error that say it was denied or cancelled (each contract words them its own way). */
export interface ToolErrorWords {
  denied: readonly string[];
  cancelled: readonly string[];
}

/** V1 parts' errors. */
export const V1_TOOL_ERRORS: ToolErrorWords = {
  denied: ["rejected permission", "permission denied", "dismissed this question"],
  cancelled: ["aborted", "interrupted"],
};

/** `/api` tool calls' errors. */
export const API_TOOL_ERRORS: ToolErrorWords = {
  denied: ["rejected", "permission denied", "dismissed"],
  cancelled: ["abort", "interrupt"],
};

/** A tool state's status as the canonical one; a failure is a denial or a cancellation when its error says so. */
export function toolStatusOf(status: string | undefined, error: string | undefined, words: ToolErrorWords): ToolStatus {
  switch (status) {
    case "pending":
      return "pending";
    case "running":
      return "running";
    case "completed":
      return "completed";
    case "error": {
      const e = (error ?? "").toLowerCase();
      if (words.denied.some((w) => e.includes(w))) return "denied";
      if (words.cancelled.some((w) => e.includes(w))) return "cancelled";
      return "error";
    }
    default:
      return "pending";
  }
}
