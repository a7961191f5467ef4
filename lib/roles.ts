/**
 * Roles without a schema library (the session page's JavaScript stays small: docs/performance.md):
 * what each role may do, and why not. The schemas of the API's answers are in lib/people.ts.
 */

export const ROLES = ["viewer", "operator", "admin"] as const;
export type Role = (typeof ROLES)[number];

/** What a route needs: no login, any role (reads), an operator (works sessions), an admin (runs the console). */
export type Need = "public" | "read" | "operate" | "admin";

export interface Person {
  id: string;
  name: string;
  email: string;
}

/** `GET /api/me`. */
export interface Me {
  user: Person;
  role: Role;
  via: "oidc" | "token";
}

const RANK: Record<Role, number> = { viewer: 1, operator: 2, admin: 3 };
const NEEDED: Record<Need, number> = { public: 0, read: 1, operate: 2, admin: 3 };

/** Whether a role may do what a route needs (`public` needs no role at all). */
export function roleAllows(role: Role | undefined, need: Need): boolean {
  if (need === "public") return true;
  return role !== undefined && RANK[role] >= NEEDED[need];
}

/** Why a role may not do something (the tooltip on a disabled control, and the 403's message). */
export function whyNot(role: Role | undefined, need: Need): string | undefined {
  if (roleAllows(role, need)) return undefined;
  if (need === "admin") return "Only an admin can do this";
  return "Viewers can read but not change anything; an operator or admin can do this";
}
