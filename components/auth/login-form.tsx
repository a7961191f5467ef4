"use client";
import { useCallback, useEffect, useRef, useState, type FormEvent } from "react";
import type { ErrorBody } from "@/lib/api";
import { useTheme } from "@/lib/hooks/use-theme";
import { cx } from "../ui/cx";
import { IconKey, IconMoon, IconSun } from "../ui/icons";
import { Spinner } from "../ui/spinner";

type Status = { kind: "idle" } | { kind: "submitting" } | { kind: "error"; message: string };

async function postLogin(token: string): Promise<{ ok: true } | { ok: false; message: string }> {
  try {
    const res = await fetch("/api/auth/login", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ token }),
      credentials: "same-origin",
    });
    if (res.ok) return { ok: true };
    const body = (await res.json().catch(() => undefined)) as ErrorBody | undefined;
    if (res.status === 401) return { ok: false, message: "That token is not right. Check it and try again." };
    if (res.status === 429) return { ok: false, message: "Too many attempts. Wait a minute, then try again." };
    return { ok: false, message: body?.error.message ?? `Login failed (${res.status})` };
  } catch {
    return { ok: false, message: "The console is not reachable." };
  }
}

/**
 * The login card: paste the token, or arrive with `?token=` (from the start-up URL) and it submits
 * itself. With OIDC set up (`provider`), "Sign in with <provider>" comes first (docs/people.md).
 */
export function LoginForm({ next, provider }: { next: string; provider?: string | undefined }) {
  const [token, setToken] = useState("");
  const [status, setStatus] = useState<Status>({ kind: "idle" });
  const [theme, toggleTheme] = useTheme();
  const input = useRef<HTMLInputElement>(null);
  const started = useRef(false);

  const submit = useCallback(
    async (value: string) => {
      const t = value.trim();
      if (!t) {
        setStatus({ kind: "error", message: "Paste the console token." });
        input.current?.focus();
        return;
      }
      setStatus({ kind: "submitting" });
      const r = await postLogin(t);
      if (r.ok) {
        window.location.replace(next);
        return;
      }
      setStatus({ kind: "error", message: r.message });
      input.current?.select();
    },
    [next],
  );

  // `?token=…` (the URL printed at start-up): take it out of the address bar and history, then log in.
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    const url = new URL(window.location.href);
    const fromUrl = url.searchParams.get("token");
    if (fromUrl === null) return;
    url.searchParams.delete("token");
    window.history.replaceState(null, "", url.pathname + url.search + url.hash);
    setToken(fromUrl);
    void submit(fromUrl);
  }, [submit]);

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void submit(token);
  };

  const busy = status.kind === "submitting";
  return (
    <main className="relative grid min-h-dvh place-items-center bg-bg px-4" data-testid="login-page">
      <button
        type="button"
        onClick={() => toggleTheme()}
        className="absolute right-4 top-4 grid size-8 place-items-center rounded-md text-muted hover:bg-raised hover:text-fg"
        title={theme === "dark" ? "Light theme" : "Dark theme"}
        aria-label="Toggle theme"
        data-testid="theme-toggle"
      >
        {theme === "dark" ? <IconSun className="size-4" /> : <IconMoon className="size-4" />}
      </button>
      <div className="w-full max-w-[380px]">
        <div className="mb-6 flex items-center justify-center gap-2.5">
          <span className="grid size-8 place-items-center rounded-md bg-accent text-[15px] font-bold text-accent-fg">
            S
          </span>
          <span className="text-[17px] font-semibold tracking-tight text-fg">Switchboard</span>
        </div>
        {provider ? (
          <a
            href={`/api/auth/oidc/login?next=${encodeURIComponent(next)}`}
            className="mb-4 flex h-10 w-full items-center justify-center rounded-md bg-accent text-[13.5px] font-semibold text-accent-fg hover:brightness-110"
            data-testid="login-oidc"
          >
            Sign in with {provider}
          </a>
        ) : null}
        <form
          onSubmit={onSubmit}
          className="rounded-xl border border-border bg-panel p-6 shadow-[0_1px_2px_rgba(0,0,0,0.12),0_8px_24px_-12px_rgba(0,0,0,0.35)]"
          data-testid="login-form"
          noValidate
        >
          <h1 className="text-[15px] font-semibold text-fg">
            {provider ? "Or log in with the console token" : "Log in to the console"}
          </h1>
          <p className="mt-1 text-[12.5px] leading-5 text-muted">
            Use the token printed when the console started, or the value of{" "}
            <code className="font-mono text-[11.5px] text-fg">SWITCHBOARD_TOKEN</code>.
          </p>
          {/* For password managers: the token is the password of a fixed "user". */}
          <input type="text" name="username" autoComplete="username" value="switchboard" readOnly hidden />
          <label htmlFor="token" className="mb-1.5 mt-5 block text-[12px] font-medium text-muted">
            Console token
          </label>
          <div
            className={cx(
              "flex h-9 items-center gap-2 rounded-md border bg-sunken px-2.5 focus-within:border-accent focus-within:ring-2 focus-within:ring-accent/25",
              status.kind === "error" ? "border-err/60" : "border-border",
            )}
          >
            <IconKey size={15} className="shrink-0 text-faint" />
            <input
              ref={input}
              id="token"
              name="token"
              type="password"
              autoComplete="current-password"
              autoFocus
              spellCheck={false}
              value={token}
              onChange={(e) => {
                setToken(e.target.value);
                if (status.kind === "error") setStatus({ kind: "idle" });
              }}
              disabled={busy}
              placeholder="Paste the token"
              aria-invalid={status.kind === "error"}
              aria-describedby={status.kind === "error" ? "login-error" : undefined}
              data-testid="login-token"
              style={{ outline: "none" }}
              className="min-w-0 flex-1 bg-transparent font-mono text-[13px] text-fg outline-none placeholder:font-sans placeholder:text-faint disabled:opacity-60"
            />
          </div>
          <p
            id="login-error"
            role="alert"
            className="mt-2 min-h-[18px] text-[12px] leading-[18px] text-err"
            data-testid="login-error"
          >
            {status.kind === "error" ? status.message : ""}
          </p>
          <button
            type="submit"
            disabled={busy}
            data-testid="login-submit"
            className="mt-2 inline-flex h-9 w-full items-center justify-center gap-2 rounded-md bg-accent text-[13px] font-semibold text-accent-fg hover:brightness-110 disabled:opacity-70"
          >
            {busy ? <Spinner className="size-3.5" /> : null}
            {busy ? "Logging in…" : "Log in"}
          </button>
        </form>
        <p className="mt-4 text-center text-[11.5px] leading-5 text-faint">
          A generated token is kept in <code className="font-mono">console-token</code> in the data directory.
        </p>
      </div>
    </main>
  );
}
