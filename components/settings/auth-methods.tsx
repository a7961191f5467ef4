"use client";
import { useQueryClient } from "@tanstack/react-query";
import { lazy, Suspense, useEffect, useState } from "react";
import type { BackendCredentialsBody, BackendLoginBody } from "@/lib/api";
import type { BackendAuthMethod } from "@/lib/model";
import { apiSend } from "@/lib/client/api-client";
import { useRoleReason } from "@/lib/hooks/use-me";

// The login terminal and xterm.js load when a login is run, never with the page.
const LoginTerminal = lazy(() => import("./login-terminal"));

/**
 * An ACP agent's ways to authenticate (what it advertised at `initialize`). `env_var` methods take
 * their variables here: the values go to the server (`POST …/credentials`) and never come back — a
 * variable that has one shows as "set". Key-taking `agent` methods take their key the same way; a
 * device-code login (`signIn`) is started here and shows the link and the code the agent sends; a
 * terminal login (`runInTerminal`) runs in the console's terminal, in a dialog, for admins.
 */
export function AuthMethods({
  backendId,
  methods,
  needed,
}: {
  backendId: string;
  methods: BackendAuthMethod[];
  needed: boolean;
}) {
  // Opens by itself when the backend needs a login; stays as the user left it after that.
  const [open, setOpen] = useState(needed);
  const [running, setRunning] = useState<BackendAuthMethod | null>(null);
  const manage = !useRoleReason("admin");
  useEffect(() => {
    if (needed) setOpen(true);
  }, [needed]);
  if (!methods.length) return null;
  return (
    <>
      <details
        className="mt-2 rounded-md border border-border px-3 py-2 text-[12px]"
        open={open}
        onToggle={(e) => setOpen(e.currentTarget.open)}
        data-testid="auth-methods"
      >
        <summary className="cursor-pointer text-muted">
          Authentication ({methods.length} method{methods.length === 1 ? "" : "s"})
        </summary>
        <ul className="mt-2 space-y-2">
          {methods.map((m) => (
            <li key={m.id} data-testid="auth-method" data-method-id={m.id} data-type={m.type}>
              <div className="font-medium text-fg">
                {m.name}
                {m.origin === "console" && (
                  <span className="ml-1.5 font-normal text-faint">
                    (known to the console; the agent does not advertise it)
                  </span>
                )}
              </div>
              {m.description && <p className="text-muted">{m.description}</p>}
              {m.command && <p className="font-mono text-muted">Run in a terminal: {m.command}</p>}
              {m.runInTerminal && manage && (
                <button
                  type="button"
                  onClick={() => setRunning(m)}
                  data-testid="auth-run-terminal"
                  className="mt-1 h-7 rounded-md bg-accent px-2.5 font-medium text-accent-fg hover:opacity-90"
                >
                  Run in terminal
                </button>
              )}
              {m.link && (
                <a href={m.link} target="_blank" rel="noreferrer noopener" className="text-accent underline">
                  Get a key
                </a>
              )}
              {m.vars && <EnvVarForm backendId={backendId} method={m} vars={m.vars} />}
              {m.signIn && <SignIn backendId={backendId} method={m} />}
            </li>
          ))}
        </ul>
      </details>
      {running && (
        <Suspense fallback={null}>
          <LoginTerminal
            backendId={backendId}
            methodId={running.id}
            title={running.name}
            onClose={() => setRunning(null)}
          />
        </Suspense>
      )}
    </>
  );
}

function EnvVarForm({
  backendId,
  method,
  vars,
}: {
  backendId: string;
  method: BackendAuthMethod;
  vars: NonNullable<BackendAuthMethod["vars"]>;
}) {
  const qc = useQueryClient();
  const [values, setValues] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string>();
  const [saved, setSaved] = useState(false);

  const save = async () => {
    setSaving(true);
    setError(undefined);
    setSaved(false);
    try {
      const body: BackendCredentialsBody = {
        methodId: method.id,
        vars: Object.fromEntries(vars.map((v) => [v.name, values[v.name] ?? ""]).filter(([, v]) => v !== "")),
      };
      await apiSend("POST", `/api/backends/${encodeURIComponent(backendId)}/credentials`, body);
      setValues({});
      setSaved(true);
      await qc.invalidateQueries({ queryKey: ["backends"] });
    } catch (err) {
      setError(err instanceof Error ? err.message : "Could not save it");
    } finally {
      setSaving(false);
    }
  };
  const clear = async (name: string) => {
    setError(undefined);
    try {
      await apiSend("POST", `/api/backends/${encodeURIComponent(backendId)}/credentials`, {
        methodId: method.id,
        vars: { [name]: "" },
      } satisfies BackendCredentialsBody);
      await qc.invalidateQueries({ queryKey: ["backends"] });
    } catch (err) {
      setError(err instanceof Error ? err.message : "Could not clear it");
    }
  };
  const ready = vars.some((v) => (values[v.name] ?? "").trim() !== "");

  return (
    <form
      className="mt-1.5 flex flex-wrap items-end gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        if (ready) void save();
      }}
    >
      {vars.map((v) => (
        <label key={v.name} className="flex flex-col gap-0.5">
          <span className="font-mono text-faint">
            {v.label ?? v.name}
            {v.set && (
              <span className="ml-1.5 text-ok" data-testid="auth-var-set">
                set
              </span>
            )}
          </span>
          <span className="flex items-center gap-1">
            <input
              type={v.secret === false ? "text" : "password"}
              autoComplete="off"
              spellCheck={false}
              value={values[v.name] ?? ""}
              onChange={(e) => setValues((s) => ({ ...s, [v.name]: e.target.value }))}
              placeholder={v.set ? "••••••• (replace)" : v.optional ? "optional" : "value"}
              data-testid="auth-var-input"
              data-var={v.name}
              aria-label={v.name}
              className="h-7 w-64 rounded-md border border-border bg-sunken px-2 font-mono text-[12px] text-fg"
            />
            {v.set && (
              <button
                type="button"
                onClick={() => void clear(v.name)}
                className="h-7 rounded-md px-2 text-muted hover:bg-raised"
                data-testid="auth-var-clear"
              >
                Clear
              </button>
            )}
          </span>
        </label>
      ))}
      <button
        type="submit"
        disabled={!ready || saving}
        data-testid="auth-save"
        className="h-7 rounded-md bg-accent px-2.5 font-medium text-accent-fg hover:opacity-90 disabled:opacity-50"
      >
        {saving ? "Saving…" : "Save and restart"}
      </button>
      {saved && <span className="text-ok">Saved: the agent restarts with it.</span>}
      {error && <span className="text-err">{error}</span>}
    </form>
  );
}

/** A device-code login: *Sign in* starts it; the agent's link and message (with the code) show here. */
function SignIn({ backendId, method }: { backendId: string; method: BackendAuthMethod }) {
  const qc = useQueryClient();
  const [error, setError] = useState<string>();
  const [starting, setStarting] = useState(false);
  const login = method.login;
  const start = async () => {
    setStarting(true);
    setError(undefined);
    try {
      await apiSend("POST", `/api/backends/${encodeURIComponent(backendId)}/login`, {
        methodId: method.id,
      } satisfies BackendLoginBody);
      await qc.invalidateQueries({ queryKey: ["backends"] });
    } catch (err) {
      setError(err instanceof Error ? err.message : "Could not start the sign-in");
    } finally {
      setStarting(false);
    }
  };
  const running = login && !login.error;
  return (
    <div className="mt-1.5 space-y-1" data-testid="auth-sign-in">
      {!running && (
        <button
          type="button"
          onClick={() => void start()}
          disabled={starting}
          data-testid="auth-sign-in-start"
          className="h-7 rounded-md bg-accent px-2.5 font-medium text-accent-fg hover:opacity-90 disabled:opacity-50"
        >
          {starting ? "Starting…" : "Sign in"}
        </button>
      )}
      {running && !login.url && <p className="text-muted">Waiting for the agent…</p>}
      {running && login.url && (
        <div className="rounded-md border border-border bg-sunken px-2 py-1.5" data-testid="auth-login-prompt">
          {login.message && (
            <p className="text-fg" data-testid="auth-login-message">
              {login.message}
            </p>
          )}
          <a
            href={login.url}
            target="_blank"
            rel="noreferrer noopener"
            className="font-mono text-accent underline"
            data-testid="auth-login-link"
          >
            {login.url}
          </a>
          <p className="text-faint">The agent signs in when you have finished there.</p>
        </div>
      )}
      {(login?.error ?? error) && <p className="text-err">{login?.error ?? error}</p>}
    </div>
  );
}
