/**
 * Defensive accessors for untrusted protocol frames, shared by every normalizer: each returns a
 * value of the asked type or a neutral one (`{}`, `undefined`, `[]`), never throws.
 */
export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
/** `v` when it is a plain object, else `{}`. */
export const obj = (v: unknown): Obj => (isObj(v) ? v : {});
export const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
/** A finite number, else undefined. */
export const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
