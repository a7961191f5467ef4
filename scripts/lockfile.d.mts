export interface LockEntry {
  version?: string;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  optional?: boolean;
  integrity?: string;
  optionalDependencies?: Record<string, string>;
  [key: string]: unknown;
}
export interface Lock {
  packages: Record<string, LockEntry>;
  [key: string]: unknown;
}
export function platformOf(name: string): { os: string; cpu: string; libc: string | undefined } | undefined;
export function missingOptional(lock: Lock): { name: string; version: string; by: string }[];
export function completeLock(lock: Lock): string[];
