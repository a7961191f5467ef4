export const SOURCE_DIRS: string[];
export const SOURCE_FILES: string[];
export const FINGERPRINT_FILE: string;
export function buildInputs(root: string): string[];
export function buildFingerprint(root: string): string;
export function rebuildReason(root: string, current?: string): string | undefined;
export function saveFingerprint(root: string, fingerprint: string): void;
