"use client";
import { useState } from "react";
import type { Backend } from "@/lib/model";
import { apiSend } from "@/lib/client/api-client";

type Provider = NonNullable<Backend["auth"]>["providers"][number];

/**
 * An API key for one of a backend's model providers (`Backend.auth`: Opal's API-key providers).
 * The key is sent once to the backend (`POST …/auth`), which hands it to the agent; the console
 * never shows or stores it.
 */
export function ApiKeyForm({ backendId, providers }: { backendId: string; providers: Provider[] }) {
  const keyed = providers.filter((p) => p.method === "api_key");
  const [provider, setProvider] = useState(keyed.find((p) => !p.ready)?.id ?? keyed[0]?.id ?? "");
  const [key, setKey] = useState("");
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string }>();
  if (!keyed.length) return null;
  const save = async () => {
    setBusy(true);
    setResult(undefined);
    try {
      await apiSend("POST", `/api/backends/${encodeURIComponent(backendId)}/auth`, { provider, apiKey: key });
      setKey("");
      setResult({ ok: true, text: "Key saved" });
    } catch (err) {
      setResult({ ok: false, text: err instanceof Error ? err.message : "Could not save the key" });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      className="mt-2 flex flex-wrap items-center gap-1.5 text-[12px]"
      data-testid="backend-api-key-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (key.trim()) void save();
      }}
    >
      <span className="text-faint">Providers</span>
      {providers.map((p) => (
        <span
          key={p.id}
          data-testid="backend-provider"
          data-provider={p.id}
          data-ready={p.ready}
          className={p.ready ? "rounded bg-raised px-1 text-ok" : "rounded bg-raised px-1 text-muted"}
        >
          {p.name}
          {p.ready ? " ✓" : ""}
        </span>
      ))}
      <label className="sr-only" htmlFor={`api-key-provider-${backendId}`}>
        Provider
      </label>
      <select
        id={`api-key-provider-${backendId}`}
        value={provider}
        onChange={(e) => setProvider(e.target.value)}
        data-testid="backend-api-key-provider"
        className="h-7 rounded-md border border-border bg-sunken px-1.5 text-fg"
      >
        {keyed.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </select>
      <label className="sr-only" htmlFor={`api-key-${backendId}`}>
        API key
      </label>
      <input
        id={`api-key-${backendId}`}
        type="password"
        autoComplete="off"
        placeholder={keyed.find((p) => p.id === provider)?.envVar ?? "API key"}
        value={key}
        onChange={(e) => setKey(e.target.value)}
        data-testid="backend-api-key"
        className="h-7 w-56 rounded-md border border-border bg-sunken px-2 font-mono text-fg outline-none placeholder:text-faint focus:border-accent"
      />
      <button
        type="submit"
        disabled={busy || !key.trim()}
        data-testid="backend-api-key-save"
        className="h-7 rounded-md border border-border px-2.5 text-muted hover:bg-raised hover:text-fg disabled:opacity-50"
      >
        {busy ? "Saving…" : "Set key"}
      </button>
      {result && (
        <span role="status" data-testid="backend-api-key-result" className={result.ok ? "text-ok" : "text-err"}>
          {result.text}
        </span>
      )}
    </form>
  );
}
