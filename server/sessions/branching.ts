import "server-only";
import type { SessionTree, TreeNode } from "@/lib/api";
import type { PersonRef, Session } from "@/lib/model";
import type { ConsoleApp } from "../app";
import { capability } from "../capability";
import { isApiError } from "../errors";
import { log } from "../log";

type Deps = Pick<ConsoleApp, "backends" | "hub" | "lineage">;
type ForkDeps = Deps & Pick<ConsoleApp, "attribution">;

/** Fork a session (from a message, or whole), record the lineage, and announce the new session. */
export async function forkSession(
  app: ForkDeps,
  backendId: string,
  sessionId: string,
  messageId?: string,
  /** Who forked it: the new session's creator (docs/people.md, "Attribution"). */
  by?: PersonRef,
): Promise<Session> {
  const adapter = app.backends.require(backendId);
  const fork = capability(adapter, "fork", adapter.fork);
  const created = await fork(sessionId, messageId);
  app.lineage.record(backendId, created.id, { sessionId, ...(messageId ? { messageId } : {}) });
  if (by) app.attribution.sessionCreated(backendId, created.id, by);
  const session = app.lineage.decorate(backendId, created);
  app.hub.publish(backendId, session.id, { type: "session.updated", session });
  return session;
}

const MAX_NODES = 200;
const MAX_DEPTH = 12;

/**
 * The family of a session: walk up through `parentId` (subagents) and `forkedFrom` (forks) to the
 * root, then down through subagent children and recorded forks. Sessions that are gone are skipped.
 */
export async function sessionTree(app: Deps, backendId: string, sessionId: string): Promise<SessionTree> {
  const adapter = app.backends.require(backendId);
  const cache = new Map<string, Session | null>();
  const get = async (id: string): Promise<Session | null> => {
    if (cache.has(id)) return cache.get(id)!;
    let s: Session | null = null;
    try {
      s = app.lineage.decorate(backendId, await adapter.getSession(id));
    } catch (err) {
      if (!isApiError(err) || err.code !== "not_found") throw err;
    }
    cache.set(id, s);
    return s;
  };

  const current = app.lineage.decorate(backendId, await adapter.getSession(sessionId)); // 404 when unknown
  cache.set(current.id, current);
  let root = current;
  const seen = new Set([root.id]);
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const up = root.parentId ?? root.forkedFrom?.sessionId;
    if (!up || seen.has(up)) break;
    const parent = await get(up);
    if (!parent) break;
    seen.add(parent.id);
    root = parent;
  }

  const children =
    adapter.info().capabilities.children === true && adapter.children ? adapter.children.bind(adapter) : undefined;
  let count = 1;
  let truncated = false;
  const placed = new Set([root.id]);
  const build = async (session: Session, relation: TreeNode["relation"], depth: number): Promise<TreeNode> => {
    const node: TreeNode = { session, relation, children: [] };
    if (depth >= MAX_DEPTH) {
      truncated = true;
      return node;
    }
    const kids: { s: Session; relation: TreeNode["relation"] }[] = [];
    if (children) {
      try {
        for (const c of await children(session.id)) {
          const d = app.lineage.decorate(backendId, c);
          cache.set(d.id, d);
          kids.push({ s: d, relation: "subagent" });
        }
      } catch (err) {
        log.warn("could not list child sessions", {
          sessionId: session.id,
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
    for (const id of app.lineage.forksOf(backendId, session.id)) {
      const s = await get(id);
      if (s) kids.push({ s, relation: "fork" });
      else app.lineage.forget(backendId, id);
    }
    kids.sort((a, b) => a.s.createdAt - b.s.createdAt || a.s.id.localeCompare(b.s.id));
    for (const k of kids) {
      if (placed.has(k.s.id)) continue;
      if (count >= MAX_NODES) {
        truncated = true;
        break;
      }
      placed.add(k.s.id);
      count++;
      node.children.push(await build(k.s, k.relation, depth + 1));
    }
    return node;
  };

  const tree = await build(root, "root", 0);
  return { root: tree, currentId: sessionId, ...(truncated ? { truncated: true } : {}) };
}
