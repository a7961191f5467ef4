"use client";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import type { BackendDefinition, BackendKindInfo, BackendPreset } from "@/lib/api";
import type { Backend, BackendKind } from "@/lib/model";
import { apiGet, apiSend } from "@/lib/client/api-client";
import { formatCommandLine, parseCommandLine, parseEnvLines } from "@/lib/command-line";
import { cx } from "../ui/cx";
import { Spinner } from "../ui/spinner";

const input =
  "h-8 w-full rounded-md border border-border bg-sunken px-2.5 text-[13px] text-fg outline-none placeholder:text-faint focus:border-accent";

/**
 * Add a backend by its command line (an ACP agent, or any kind whose kind table entry has
 * `form: "command"`): a label, a command line (spawned directly, no shell), environment variables
 * (kept on the server; the browser only ever sees them as ***) and a working directory. Presets fill
 * the form (and pick the kind) for the agents found on this machine; with more than one such kind, a
 * select picks it.
 */
export function AddCommandBackend() {
  const qc = useQueryClient();
  const presets = useQuery({
    queryKey: ["backend-presets"],
    queryFn: () => apiGet<{ items: BackendPreset[] }>("/api/backends/presets"),
  });
  const kinds = useQuery({
    queryKey: ["backend-kinds"],
    queryFn: () => apiGet<{ items: BackendKindInfo[] }>("/api/backends/kinds"),
  });
  const commandKinds = (kinds.data?.items ?? []).filter((k) => k.form === "command");
  const [chosenKind, setKind] = useState<BackendKind>();
  const kind = chosenKind ?? commandKinds[0]?.kind;
  const [label, setLabel] = useState("");
  const [command, setCommand] = useState("");
  const [env, setEnv] = useState("");
  const [passEnv, setPassEnv] = useState("");
  const [cwd, setCwd] = useState("");
  const [error, setError] = useState<string>();
  const [saving, setSaving] = useState(false);
  const [added, setAdded] = useState<string>();

  const applyPreset = (p: BackendPreset) => {
    if (commandKinds.some((k) => k.kind === p.kind)) setKind(p.kind);
    setLabel(p.label);
    setCommand(formatCommandLine(p.command));
    setError(undefined);
    setAdded(undefined);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setAdded(undefined);
    let def: BackendDefinition;
    try {
      const args = parseCommandLine(command);
      if (args.length === 0) throw new Error("Enter the command that starts the agent");
      if (!kind) throw new Error("This console offers no agent kind that runs a command");
      const vars = parseEnvLines(env);
      const passed = passEnv.split(/[\s,]+/).filter(Boolean);
      def = {
        kind,
        label: label.trim(),
        config: {
          command: args,
          ...(Object.keys(vars).length ? { env: vars } : {}),
          ...(passed.length ? { passEnv: passed } : {}),
          ...(cwd.trim() ? { cwd: cwd.trim() } : {}),
        },
        // a "command" kind takes the stdio config (lib/api.ts StdioBackendConfig); the server validates it
      } as BackendDefinition;
      if (!def.label) throw new Error("Give the agent a label");
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      return;
    }
    setSaving(true);
    try {
      const b = await apiSend<Backend>("POST", "/api/backends", def);
      await qc.invalidateQueries({ queryKey: ["backends"] });
      setAdded(b.label);
      setLabel("");
      setCommand("");
      setEnv("");
      setPassEnv("");
      setCwd("");
    } catch (err) {
      setError(err instanceof Error ? err.message : "Could not add the agent");
    } finally {
      setSaving(false);
    }
  };

  return (
    <form
      onSubmit={(e) => void submit(e)}
      className="rounded-lg border border-border bg-panel p-4"
      data-testid="add-backend"
    >
      <div className="flex flex-wrap items-center gap-2">
        <span className="text-[12px] text-faint">Presets</span>
        {(presets.data?.items ?? []).map((p) => (
          <button
            key={p.id}
            type="button"
            onClick={() => applyPreset(p)}
            data-testid={`preset-${p.id}`}
            data-available={p.available}
            title={presetTitle(p)}
            className={cx(
              "inline-flex h-7 items-center gap-1.5 rounded-md border px-2.5 text-[12.5px]",
              p.available
                ? "border-accent/40 bg-accent/10 text-accent hover:bg-accent/15"
                : "border-dashed border-border text-faint hover:text-muted",
            )}
          >
            <span className={cx("size-1.5 rounded-full", p.available ? "bg-ok" : "bg-border-strong")} />
            {p.label}
            {p.version && <span className="text-[11px] tabular-nums">{p.version}</span>}
            {p.bundled && <span className="text-[11px]">· bundled copy</span>}
            {!p.available && <span className="text-[11px]">· not installed</span>}
          </button>
        ))}
        {presets.isLoading && <Spinner size={11} />}
      </div>
      <div className="mt-3 grid grid-cols-1 gap-3 md:grid-cols-2">
        {commandKinds.length > 1 && (
          <label className="flex flex-col gap-1 text-[12px] text-muted md:col-span-2">
            Kind
            <select
              className={input}
              value={kind}
              onChange={(e) => setKind(e.target.value as BackendKind)}
              data-testid="backend-kind"
            >
              {commandKinds.map((k) => (
                <option key={k.kind} value={k.kind}>
                  {k.title}
                </option>
              ))}
            </select>
          </label>
        )}
        <label className="flex flex-col gap-1 text-[12px] text-muted">
          Label
          <input
            className={input}
            value={label}
            onChange={(e) => setLabel(e.target.value)}
            placeholder="GitHub Copilot CLI"
            data-testid="backend-label"
            maxLength={100}
          />
        </label>
        <label className="flex flex-col gap-1 text-[12px] text-muted">
          Command line
          <input
            className={cx(input, "font-mono")}
            value={command}
            onChange={(e) => setCommand(e.target.value)}
            placeholder="copilot --acp --no-auto-update"
            data-testid="backend-command"
            spellCheck={false}
          />
        </label>
        <label className="flex flex-col gap-1 text-[12px] text-muted">
          Environment <span className="text-faint">KEY=value per line; stored on the server, shown only as ***</span>
          <textarea
            className={cx(input, "h-20 resize-y py-1.5 font-mono")}
            value={env}
            onChange={(e) => setEnv(e.target.value)}
            placeholder={"COPILOT_GITHUB_TOKEN=…"}
            data-testid="backend-env-input"
            spellCheck={false}
          />
        </label>
        <label className="flex flex-col gap-1 text-[12px] text-muted">
          Pass from the console&apos;s environment{" "}
          <span className="text-faint">
            variable names, e.g. OPENAI_API_KEY; agents get only PATH, HOME, locale, XDG and proxy settings otherwise
          </span>
          <input
            className={cx(input, "font-mono")}
            value={passEnv}
            onChange={(e) => setPassEnv(e.target.value)}
            placeholder="OPENAI_API_KEY ANTHROPIC_API_KEY"
            data-testid="backend-pass-env"
            spellCheck={false}
          />
        </label>
        <label className="flex flex-col gap-1 text-[12px] text-muted">
          Working directory <span className="text-faint">optional; default: the console&apos;s workspace</span>
          <input
            className={cx(input, "font-mono")}
            value={cwd}
            onChange={(e) => setCwd(e.target.value)}
            placeholder="/path/to/project"
            data-testid="backend-cwd"
            spellCheck={false}
          />
        </label>
      </div>
      <div className="mt-3 flex items-center gap-3">
        <button
          type="submit"
          disabled={saving || kinds.isLoading}
          data-testid="add-backend-submit"
          className="inline-flex h-8 items-center gap-1.5 rounded-md bg-accent px-3 text-[13px] font-medium text-accent-fg hover:opacity-90 disabled:opacity-50"
        >
          {saving && <Spinner size={11} />}
          Add agent
        </button>
        {error && (
          <span className="text-[12px] text-err" role="alert" data-testid="add-backend-error">
            {error}
          </span>
        )}
        {added && <span className="text-[12px] text-ok">Added {added}. It starts in the background.</span>}
      </div>
    </form>
  );
}

/** A preset's tooltip: what it runs, where it was found, and whether that is the console's own copy. */
function presetTitle(p: BackendPreset): string {
  if (!p.available) return `${p.description}\nNot installed on this machine`;
  const version = p.version ? `, version ${p.version}` : "";
  if (p.bundled)
    return `${p.description}\nNot on your PATH: the console's bundled copy${version} (${p.path}). Install it yourself to run your own.`;
  return `${p.description}\nFound at ${p.path}${version}`;
}
