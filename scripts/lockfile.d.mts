export interface LockEntry {
  version?: string;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  optional?: boolean;
  integrity?: string;
  link?: boolean;
  inBundle?: boolean;
  optionalDependencies?: Record<string, string>;
  [key: string]: unknown;
}
export interface Lock {
  packages: Record<string, LockEntry>;
  [key: string]: unknown;
}
/** The integrity a registry serves for `name@version`, or undefined when it serves no such version. */
export type IntegrityLookup = (name: string, version: string) => Promise<string | undefined>;
export function platformOf(name: string): { os: string; cpu: string; libc: string | undefined } | undefined;
export function missingOptional(lock: Lock): { name: string; version: string; by: string }[];
export function nameOf(key: string): string;
export function unhashed(lock: Lock): { key: string; name: string; version: string; entry: LockEntry }[];
export function isPinnedPlatformBinary(name: string, entry: LockEntry): boolean;
export function registryIntegrity(name: string, version: string): Promise<string | undefined>;
export function completeLock(
  lock: Lock,
  lookup?: IntegrityLookup,
): Promise<{ added: string[]; hashed: string[]; unservable: string[] }>;
export function checkLock(lock: Lock, lookup?: IntegrityLookup): Promise<{ problems: string[]; pinned: string[] }>;
