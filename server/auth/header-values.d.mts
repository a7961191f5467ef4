/** Types of server/auth/header-values.mjs. */
export const SECURITY_HEADERS: Readonly<Record<string, string>>;
export const API_CSP: string;
export const STATIC_SCRIPT_CSP: string;
