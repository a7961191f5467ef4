"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { CompareGroup, CompareTarget } from "@/lib/compare-api";
import { MAX_TARGETS } from "@/lib/compare-api";
import type { Backend } from "@/lib/model";
import { apiGet, apiSend } from "@/lib/client/api-client";
import { useRoleReason } from "@/lib/hooks/use-me";
import { relativeTime } from "@/lib/format";
import { keptMentions } from "@/lib/mentions";
import { SidebarToggle } from "../shell/shell";
import { cx } from "../ui/cx";
import dynamic from "next/dynamic";
import type { TaskValue } from "./compare-task";

// Loaded on demand (the composer's mention list and attachments), as the board's columns are.
const CompareTask = dynamic(() => import("./compare-task").then((m) => m.CompareTask), {
  loading: () => <div className="h-[110px] rounded-md border border-border bg-sunken" aria-busy="true" />,
});

const field =
  "w-full rounded-md border border-border bg-sunken px-2.5 py-1.5 text-[12.5px] text-fg outline-none placeholder:text-faint focus:border-accent";

/**
 * Start a comparison (docs/compare.md): one prompt, two to four targets (a backend, the same one
 * more than once with another model), an optional test command; and the comparisons made before.
 */
export function CompareStart() {
  const router = useRouter();
  const roleReason = useRoleReason("operate");
  const backends = useQuery({ queryKey: ["backends"], queryFn: () => apiGet<{ items: Backend[] }>("/api/backends") });
  const groups = useQuery({ queryKey: ["compare"], queryFn: () => apiGet<{ items: CompareGroup[] }>("/api/compare") });
  const usable = (backends.data?.items ?? []).filter((b) => b.kind !== "a2a" && b.capabilities.directories);
  const [targets, setTargets] = useState<{ backendId: string; model: string }[]>([]);
  const [task, setTask] = useState<TaskValue>({ text: "", files: [], mentions: [] });
  const prompt = task.text;
  const [testCommand, setTestCommand] = useState("");
  const [directory, setDirectory] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  // Two rows to start with: the first two backends, or the only one twice (another model in each).
  const rows = targets.length
    ? targets
    : usable.length
      ? [usable[0]!, usable[1] ?? usable[0]!].map((b) => ({ backendId: b.id, model: "" }))
      : [];
  const setRow = (i: number, v: { backendId: string; model: string }) =>
    setTargets(rows.map((r, j) => (j === i ? v : r)));
  // Files go with the prompt when every chosen target takes them.
  const chosen = rows.map((r) => usable.find((b) => b.id === r.backendId));
  const attachments = chosen.length
    ? {
        images: chosen.every((b) => b?.capabilities.attachments?.images),
        files: chosen.every((b) => b?.capabilities.attachments?.files),
      }
    : undefined;
  const filesUrl = `/api/compare/files${directory.trim() ? `?${new URLSearchParams({ directory: directory.trim() })}` : ""}`;

  const start = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const mentions = keptMentions(prompt, task.mentions);
      const body = {
        prompt,
        ...(task.files.length
          ? { parts: task.files.map((f) => ({ type: "file" as const, mime: f.mime, url: f.url, filename: f.name })) }
          : {}),
        ...(mentions.length ? { mentions } : {}),
        targets: rows.map((r): CompareTarget => {
          const [provider, ...id] = r.model.split("/");
          return {
            backendId: r.backendId,
            ...(r.model ? { model: id.length ? { provider: provider!, id: id.join("/") } : { id: r.model } } : {}),
          };
        }),
        ...(testCommand.trim() ? { testCommand: testCommand.trim() } : {}),
        ...(directory.trim() ? { directory: directory.trim() } : {}),
      };
      const g = await apiSend<CompareGroup>("POST", "/api/compare", body);
      router.push(`/compare/${encodeURIComponent(g.id)}`);
    } catch (err) {
      setError(err instanceof Error ? err.message : "Could not start the comparison");
      setBusy(false);
    }
  };
  const reason =
    roleReason ??
    (rows.length < 2 ? "Compare needs at least two targets" : prompt.trim() === "" ? "Write the task" : undefined);

  return (
    <div className="flex h-full min-h-0 flex-col" data-testid="compare-start">
      <header className="flex h-14 shrink-0 items-center gap-2 border-b border-border bg-panel px-4 phone:px-2.5">
        <SidebarToggle />
        <h1 className="text-[15px] font-semibold text-fg">Compare agents on one task</h1>
      </header>
      <div className="min-h-0 flex-1 overflow-y-auto">
        <div className="mx-auto max-w-[760px] space-y-4 p-5">
          <p className="text-[12.5px] text-muted">
            The same prompt goes to each target, in a git worktree of its own from the same commit. Their replies,
            changed files and test results stand side by side; keep the best, and the others are archived with their
            branches.
          </p>
          <section className="space-y-2">
            <h2 className="text-[11px] font-semibold uppercase tracking-wide text-faint">Targets</h2>
            {rows.map((r, i) => (
              <div key={i} className="flex items-center gap-2" data-testid="compare-target">
                <select
                  value={r.backendId}
                  onChange={(e) => setRow(i, { backendId: e.target.value, model: "" })}
                  className={cx(field, "w-56")}
                  aria-label={`Target ${i + 1} backend`}
                >
                  {usable.map((b) => (
                    <option key={b.id} value={b.id} disabled={b.status !== "ready"}>
                      {b.label}
                      {b.status !== "ready" ? ` (${b.status})` : ""}
                    </option>
                  ))}
                </select>
                <input
                  value={r.model}
                  onChange={(e) => setRow(i, { ...r, model: e.target.value })}
                  placeholder="model (provider/id), optional"
                  className={field}
                  aria-label={`Target ${i + 1} model`}
                />
                <button
                  type="button"
                  onClick={() => setTargets(rows.filter((_, j) => j !== i))}
                  className="rounded px-2 text-[12px] text-muted hover:bg-raised hover:text-fg"
                  aria-label={`Remove target ${i + 1}`}
                >
                  Remove
                </button>
              </div>
            ))}
            <button
              type="button"
              disabled={rows.length >= MAX_TARGETS || usable.length === 0}
              onClick={() => setTargets([...rows, { backendId: usable[0]!.id, model: "" }])}
              className="rounded-md border border-border px-2.5 py-1 text-[12px] text-muted hover:bg-raised hover:text-fg disabled:opacity-45"
              data-testid="compare-add-target"
              title={rows.length >= MAX_TARGETS ? `At most ${MAX_TARGETS} targets` : "Add a target"}
            >
              + Target
            </button>
          </section>
          <section className="space-y-2">
            <h2 className="text-[11px] font-semibold uppercase tracking-wide text-faint">Task</h2>
            <CompareTask
              value={task}
              onChange={setTask}
              filesUrl={filesUrl}
              attachments={attachments}
              className={cx(field, "min-h-[110px] flex-1 resize-y")}
            />
            <input
              value={directory}
              onChange={(e) => setDirectory(e.target.value)}
              placeholder="Repository folder (default: the console's workspace)"
              className={cx(field, "font-mono")}
              data-testid="compare-directory"
              aria-label="Repository folder"
            />
            <input
              value={testCommand}
              onChange={(e) => setTestCommand(e.target.value)}
              placeholder="Test command run in each worktree when its turn ends (e.g. npm test), optional"
              className={cx(field, "font-mono")}
              data-testid="compare-test-command"
              aria-label="Test command"
            />
          </section>
          {error ? (
            <p role="alert" className="text-[12.5px] text-err" data-testid="compare-error">
              {error}
            </p>
          ) : null}
          <button
            type="button"
            onClick={() => void start()}
            disabled={busy || !!reason}
            title={reason}
            className="inline-flex h-8 items-center rounded-md bg-accent px-3 text-[12.5px] font-medium text-accent-fg hover:brightness-110 disabled:opacity-45"
            data-testid="compare-start-button"
          >
            {busy ? "Starting…" : `Run on ${rows.length} targets`}
          </button>
          {groups.data?.items.length ? (
            <section className="space-y-1 pt-4">
              <h2 className="text-[11px] font-semibold uppercase tracking-wide text-faint">Earlier comparisons</h2>
              <ul className="divide-y divide-border rounded-md border border-border">
                {groups.data.items.map((g) => (
                  <li key={g.id}>
                    <Link
                      href={`/compare/${encodeURIComponent(g.id)}`}
                      className="flex items-center gap-3 px-3 py-2 text-[12.5px] hover:bg-raised/60"
                    >
                      <span className="min-w-0 flex-1 truncate text-fg">{g.prompt.split("\n")[0]}</span>
                      <span className="text-faint">{g.members.length} agents</span>
                      {g.kept ? <span className="text-ok">kept</span> : null}
                      <span className="text-faint">{relativeTime(g.createdAt)}</span>
                    </Link>
                  </li>
                ))}
              </ul>
            </section>
          ) : null}
        </div>
      </div>
    </div>
  );
}
