import "server-only";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import type {
  ChangedFile,
  CompareDiffColumn,
  CompareGroup,
  CompareMember,
  CompareFilesQuery,
  CompareView,
  CreateCompareBody,
  KeepBody,
  TestResult,
} from "@/lib/compare-api";
import { CompareGroup as CompareGroupSchema } from "@/lib/compare-api";
import type { PromptPart } from "@/lib/api";
import { attachmentKind } from "@/lib/attachments";
import { mentionParts } from "@/lib/mentions";
import type { PersonRef, TimelineEvent } from "@/lib/model";
import type { SessionState } from "@/lib/timeline/reducer";
import type { BackendRegistry } from "../backends/registry";
import type { ConsoleConfig } from "../config";
import type { Hub } from "../hub/hub";
import type { Attribution } from "../sessions/attribution";
import type { LiveStore } from "../store/store";
import { resolveWorkspaceDir } from "../auth/workspace";
import type { HubObserver } from "../hub/hub";
import { ApiError } from "../errors";
import { log } from "../log";
import { agentEnvironment } from "../processes/agent-env";
import { listFiles, rankFiles } from "../sessions/file-listing";
import { git, gitOk, insidePaths, mergeIntoBase } from "../workspace/git";
import { createSession } from "../workspace/sessions";
import { removeWorktree, worktreeReadiness } from "../workspace/worktree";

/**
 * One task on several agents (docs/compare.md): a session per target, each in its own worktree from
 * the same commit, the same prompt to all; their changes side by side; a test command run in each
 * worktree when its turn ends; one kept (merged or continued), the others archived with their
 * branches. The group is kept in the store (`compare:<id>`), so it survives reloads, restarts and a
 * replica change.
 */

/** The parts of the console it uses (not ConsoleApp itself: server/app.ts builds this service). */
type Deps = { store: LiveStore; hub: Hub; backends: BackendRegistry; config: ConsoleConfig; attribution: Attribution };

const KEY = "compare:";
/** Which group a session belongs to (one lookup per turn, not a scan of every group). */
const memberKey = (backendId: string, sessionId: string) =>
  `compare-member:${encodeURIComponent(backendId)}:${encodeURIComponent(sessionId)}`;
const TEST_TIMEOUT_MS = 10 * 60_000;
const TEST_OUTPUT_CHARS = 64 * 1024;

/** What goes with a prompt's text: attached files (`data:` parts) and files mentioned by path. */
export interface PromptExtras {
  parts?: PromptPart[];
  /** Paths relative to the repository folder, sent as each worktree's own file. */
  mentions?: string[];
}

export class CompareService implements HubObserver {
  /** Sessions of a group seen busy: a test runs when one turns idle (not at an idle before its turn began). */
  private running = new Set<string>();

  constructor(private app: Deps) {}

  /* -------------------------------------------------------------------------------- store */

  private save(g: CompareGroup): void {
    this.app.store.setMeta(KEY + g.id, JSON.stringify(g));
    for (const m of g.members) this.app.store.setMeta(memberKey(m.backendId, m.sessionId), g.id);
  }

  read(id: string): CompareGroup {
    const raw = this.app.store.getMeta(KEY + id);
    const parsed = raw ? CompareGroupSchema.safeParse(JSON.parse(raw)) : undefined;
    if (!parsed?.success) throw ApiError.notFound("No such comparison");
    return parsed.data;
  }

  list(): CompareGroup[] {
    const out: CompareGroup[] = [];
    for (const [, raw] of this.app.store.listMeta(KEY)) {
      try {
        const p = CompareGroupSchema.safeParse(JSON.parse(raw));
        if (p.success) out.push(p.data);
      } catch {
        /* a damaged entry is skipped */
      }
    }
    return out.sort((a, b) => b.createdAt - a.createdAt);
  }

  /* ------------------------------------------------------------------------------- create */

  async create(body: CreateCompareBody, who: PersonRef | undefined): Promise<CompareGroup> {
    const { config, backends } = this.app;
    const from = await this.folder(body.directory);
    const extras: PromptExtras = { parts: body.parts ?? [], mentions: [...new Set(body.mentions ?? [])] };
    const files = extras.parts!.flatMap((p) => (p.type === "file" ? [p] : []));
    for (const f of files) {
      if (!/^data:/i.test(f.url))
        throw ApiError.badRequest("A comparison takes attached files (data: URLs); mention a file by its path instead");
      if (!attachmentKind(f.mime)) throw ApiError.badRequest(`${f.filename ?? f.mime} cannot be attached`);
    }
    // A mentioned file must lie inside the repository (403 otherwise), as it will in every worktree.
    if (extras.mentions!.length) await insidePaths(from, extras.mentions!);
    // Every target is checked before anything starts.
    for (const t of body.targets) {
      const adapter = backends.get(t.backendId);
      if (!adapter) throw ApiError.badRequest(`No backend "${t.backendId}"`);
      const info = adapter.info();
      if (info.status !== "ready")
        throw ApiError.conflict(`${info.label} is not ready (${info.status}): it cannot take part`);
      if (info.kind === "a2a" || !info.capabilities.directories)
        throw ApiError.conflict(`${info.label} does not open sessions in a chosen folder: it cannot use a worktree`);
      // Replica mode: a group's sessions, prompts and tests live where their backends run.
      if (!backends.runsHere(t.backendId))
        throw ApiError.conflict(
          `${info.label} runs on another replica: a comparison runs on the replica that runs all of its backends`,
        );
      for (const f of files) {
        const kind = attachmentKind(f.mime);
        if (kind === "image" && !info.capabilities.attachments?.images)
          throw ApiError.conflict(
            `${info.label} does not take images: it cannot take part with ${f.filename ?? "one"}`,
          );
        if (kind === "file" && !info.capabilities.attachments?.files)
          throw ApiError.conflict(
            `${info.label} takes no attached files: it cannot take part with ${f.filename ?? "one"}`,
          );
      }
    }
    const ready = await worktreeReadiness(from, config.workspaceRoots);
    if (!ready.ok) throw ApiError.conflict(ready.reason);
    const base = (await gitOk(from, ["rev-parse", "HEAD"])).trim();

    const id = randomUUID();
    const title = `Compare: ${body.prompt.split("\n")[0]!.slice(0, 60)}`;
    const members: CompareMember[] = [];
    try {
      for (const t of body.targets) {
        const session = await createSession(this.app, t.backendId, {
          title,
          directory: from,
          worktree: true,
          ...(t.model ? { model: t.model } : {}),
        });
        this.app.hub.publish(t.backendId, session.id, { type: "session.updated", session });
        if (who) this.app.attribution.sessionCreated(t.backendId, session.id, who);
        members.push({ backendId: t.backendId, sessionId: session.id, target: t, worktree: session.worktree! });
      }
    } catch (err) {
      // A target that could not start undoes the ones made before it.
      await Promise.all(members.map((m) => this.discard(m)));
      throw err;
    }
    const group: CompareGroup = {
      id,
      createdAt: Date.now(),
      ...(who ? { createdBy: who } : {}),
      prompt: body.prompt,
      ...(body.testCommand ? { testCommand: body.testCommand } : {}),
      base,
      members,
    };
    this.save(group);
    await this.prompt(group.id, body.prompt, undefined, who, extras);
    log.info("comparison started", { id, sessions: members.length });
    return this.read(id);
  }

  /** The repository folder a comparison starts from: `directory` (inside the roots) or the workspace. */
  private folder(directory: string | undefined): Promise<string> {
    const { config } = this.app;
    return directory ? resolveWorkspaceDir(directory, config.workspaceRoots) : Promise.resolve(config.workspace);
  }

  /** The repository folder's files matching an `@` mention being typed in the start form. */
  async files(q: CompareFilesQuery): Promise<{ items: string[] }> {
    const dir = await this.folder(q.directory);
    return { items: rankFiles(await listFiles(dir), q.q, q.limit) };
  }

  private async discard(m: CompareMember): Promise<void> {
    const adapter = this.app.backends.get(m.backendId);
    await adapter?.deleteSession?.(m.sessionId).catch(() => undefined);
    await removeWorktree(m.worktree.path, { deleteBranch: true }).catch(() => undefined);
  }

  /** The same prompt to every session of the group (or to one); each keeps its own turn. */
  async prompt(
    id: string,
    text: string,
    sessionId: string | undefined,
    who: PersonRef | undefined,
    extras: PromptExtras = {},
  ): Promise<CompareGroup> {
    const group = this.read(id);
    const targets = group.members.filter((m) => !m.archived && (sessionId === undefined || m.sessionId === sessionId));
    if (sessionId !== undefined && targets.length === 0) throw ApiError.notFound("No such session in this comparison");
    await Promise.all(
      targets.map(async (m) => {
        const adapter = this.app.backends.get(m.backendId);
        const withdraw = who ? this.app.attribution.expectPrompt(m.backendId, m.sessionId, who) : undefined;
        try {
          if (!adapter) throw new Error("the backend was removed");
          // Mentions become this worktree's files, carried the way this backend takes them.
          const mentioned = mentionParts(extras.mentions ?? [], m.worktree.path, adapter.info().capabilities.mentions);
          await adapter.prompt(m.sessionId, {
            parts: [{ type: "text", text }, ...(extras.parts ?? []), ...mentioned],
            ...(m.target.model ? { model: m.target.model } : {}),
            ...(m.target.agent ? { agent: m.target.agent } : {}),
          });
        } catch (err) {
          withdraw?.();
          this.update(id, m.sessionId, (x) => {
            x.error = err instanceof Error ? err.message : String(err);
          });
        }
      }),
    );
    return this.read(id);
  }

  private update(id: string, sessionId: string, fn: (m: CompareMember) => void): void {
    const g = this.read(id);
    const m = g.members.find((x) => x.sessionId === sessionId);
    if (!m) return;
    fn(m);
    this.save(g);
  }

  /* ---------------------------------------------------------------------------- the tests */

  event(backendId: string, sessionId: string, e: TimelineEvent, _state: (() => SessionState) | undefined): void {
    if (e.type !== "session.status") return;
    const key = `${backendId}/${sessionId}`;
    if (e.status === "busy") {
      if (this.app.store.getMeta(memberKey(backendId, sessionId)) !== undefined) this.running.add(key);
      return;
    }
    if (e.status !== "idle" || !this.running.delete(key)) return;
    const id = this.app.store.getMeta(memberKey(backendId, sessionId));
    const group = id === undefined ? undefined : this.read(id);
    if (group?.testCommand) void this.runTest(group.id, sessionId, group.testCommand);
  }

  sessionRemoved(): void {}
  backendRemoved(): void {}

  /** Runs the group's test command in a session's worktree (sh -c, an agent's environment, bounded). */
  runTest(id: string, sessionId: string, command: string): Promise<TestResult> {
    const m = this.read(id).members.find((x) => x.sessionId === sessionId);
    if (!m) return Promise.reject(ApiError.notFound("No such session in this comparison"));
    const startedAt = Date.now();
    this.update(id, sessionId, (x) => {
      x.test = { state: "running", exitCode: null, output: "", startedAt };
    });
    return new Promise((resolve) => {
      let output = "";
      const child = spawn("sh", ["-c", command], {
        cwd: m.worktree.path,
        env: agentEnvironment({ name: "compare test" }) as NodeJS.ProcessEnv,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
      const add = (b: Buffer) => {
        output = (output + b.toString("utf8")).slice(-TEST_OUTPUT_CHARS);
      };
      child.stdout.on("data", add);
      child.stderr.on("data", add);
      const timer = setTimeout(() => {
        output += `\n[stopped after ${TEST_TIMEOUT_MS / 60_000} minutes]`;
        try {
          process.kill(-child.pid!, "SIGKILL");
        } catch {
          /* gone */
        }
      }, TEST_TIMEOUT_MS);
      const done = (exitCode: number | null) => {
        clearTimeout(timer);
        const result: TestResult = { state: "done", exitCode, output, startedAt, endedAt: Date.now() };
        this.update(id, sessionId, (x) => {
          x.test = result;
        });
        resolve(result);
      };
      child.on("error", (err) => {
        output += `\n${err.message}`;
        done(null);
      });
      child.on("close", (code) => done(code));
    });
  }

  /* ------------------------------------------------------------------------- the view */

  async view(id: string): Promise<CompareView> {
    const group = this.read(id);
    const columns = await Promise.all(
      group.members.map(async (m) => {
        const adapter = this.app.backends.get(m.backendId);
        const snap = await this.app.hub
          .open(m.backendId, m.sessionId)
          .then((ch) => ch.snapshot())
          .catch(() => undefined);
        const replies = snap?.messages.filter((x) => x.role === "assistant") ?? [];
        const last = replies.at(-1);
        const reply = (last?.blocks ?? [])
          .filter((b) => b.kind === "text")
          .map((b) => (b as { text: string }).text)
          .join("\n")
          .slice(0, 2000);
        const input = replies.reduce((n, x) => n + (x.usage?.inputTokens ?? 0), 0);
        const output = replies.reduce((n, x) => n + (x.usage?.outputTokens ?? 0), 0);
        const cost = replies.reduce((n, x) => n + (x.usage?.costUsd ?? 0), 0);
        const first = snap?.messages[0]?.createdAt ?? group.createdAt;
        return {
          backendId: m.backendId,
          sessionId: m.sessionId,
          backendLabel: adapter?.info().label ?? m.backendId,
          title: snap?.session.title ?? "",
          status: snap ? snap.session.status : ("gone" as const),
          reply,
          startedAt: first,
          ...(snap?.session.status === "idle" && last?.completedAt ? { endedAt: last.completedAt } : {}),
          ...(input || output ? { tokens: { input, output } } : {}),
          ...(cost ? { costUsd: cost } : {}),
          files: m.archived ? [] : await changedFiles(m.worktree.path, m.worktree.base),
        };
      }),
    );
    return { ...group, columns };
  }

  /** One file's change in every session of the group, against the common base. */
  async diff(id: string, file: string): Promise<CompareDiffColumn[]> {
    const group = this.read(id);
    return Promise.all(
      group.members.map(async (m) => {
        if (m.archived) return { sessionId: m.sessionId, patch: "", additions: 0, deletions: 0 };
        // Untracked files count as added: git sees them through an intent-to-add in a throwaway index.
        const patch = await diffAgainstBase(m.worktree.path, m.worktree.base, file);
        let additions = 0;
        let deletions = 0;
        for (const line of patch.split("\n")) {
          if (line.startsWith("+") && !line.startsWith("+++")) additions++;
          else if (line.startsWith("-") && !line.startsWith("---")) deletions++;
        }
        return { sessionId: m.sessionId, patch, additions, deletions };
      }),
    );
  }

  /* --------------------------------------------------------------------------------- keep */

  async keep(id: string, body: KeepBody): Promise<CompareGroup> {
    const group = this.read(id);
    if (group.kept) throw ApiError.conflict("This comparison already kept a session");
    const chosen = group.members.find((m) => m.sessionId === body.sessionId);
    if (!chosen) throw ApiError.notFound("No such session in this comparison");
    let commit: string | undefined;
    if (body.how === "merge") {
      await commitAll(
        chosen,
        `${group.prompt.split("\n")[0]!.slice(0, 72)}\n\nKept from a comparison (${chosen.backendId}).`,
      );
      commit = (await mergeIntoBase(chosen.worktree.path)).commit;
    }
    // The others: their work committed on their branches, their worktrees removed.
    for (const m of group.members) {
      if (m === chosen || m.archived) continue;
      await commitAll(m, `Archived from a comparison (${m.backendId}).`).catch(() => undefined);
      await removeWorktree(m.worktree.path, { deleteBranch: body.deleteOtherBranches }).catch((err: unknown) =>
        log.warn("could not remove a compared session's worktree", { path: m.worktree.path, error: String(err) }),
      );
      m.archived = true;
    }
    group.kept = { sessionId: chosen.sessionId, how: body.how, ...(commit ? { commit } : {}) };
    this.save(group);
    return group;
  }
}

/** Commits everything in a member's worktree (nothing when it is clean). */
async function commitAll(m: CompareMember, message: string): Promise<void> {
  const status = await gitOk(m.worktree.path, ["status", "--porcelain"]);
  if (!status.trim()) return;
  await gitOk(m.worktree.path, ["add", "-A"]);
  const identity = (await git(m.worktree.path, ["config", "user.email"])).stdout.trim();
  // A workspace without a git identity still commits, as the console.
  const args = identity ? [] : ["-c", "user.name=Switchboard", "-c", "user.email=switchboard@localhost"];
  await gitOk(m.worktree.path, [...args, "commit", "-q", "-m", message]);
}

/** The files a worktree changed since the base: committed, staged, unstaged and untracked. */
export async function changedFiles(dir: string, base: string): Promise<ChangedFile[]> {
  const out = new Map<string, ChangedFile["status"]>();
  const diff = await git(dir, ["diff", "--name-status", "-z", base]);
  const t = diff.stdout.split("\0");
  for (let i = 0; i < t.length - 1; ) {
    const code = t[i++]!;
    if (code.startsWith("R") || code.startsWith("C")) {
      i++;
      out.set(t[i++]!, "renamed");
    } else out.set(t[i++]!, code === "A" ? "added" : code === "D" ? "deleted" : "modified");
  }
  const untracked = await git(dir, ["ls-files", "--others", "--exclude-standard", "-z"]);
  for (const p of untracked.stdout.split("\0").filter(Boolean)) out.set(p, "added");
  return [...out].map(([path, status]) => ({ path, status })).sort((a, b) => a.path.localeCompare(b.path));
}

async function diffAgainstBase(dir: string, base: string, file: string): Promise<string> {
  await insidePaths(dir, [file]); // 403 for a path that leads out of the worktree
  const tracked = await git(dir, ["diff", base, "--", file]);
  if (tracked.stdout) return tracked.stdout;
  const untracked = await git(dir, ["ls-files", "--others", "--exclude-standard", "--", file]);
  if (!untracked.stdout.trim()) return "";
  // git diff --no-index exits 1 when the files differ: that is the answer, not a failure.
  const r = await git(dir, ["diff", "--no-index", "--", "/dev/null", file]);
  return r.stdout;
}
