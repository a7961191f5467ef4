"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import type { A2aCardPreview, BackendDefinition } from "@/lib/api";
import type { Backend } from "@/lib/model";
import { apiSend } from "@/lib/client/api-client";
import { cx } from "../ui/cx";
import { Spinner } from "../ui/spinner";
import { AgentCardView } from "./agent-card-view";

const input =
  "h-8 w-full rounded-md border border-border bg-sunken px-2.5 text-[13px] text-fg outline-none placeholder:text-faint focus:border-accent";
const TOKEN_TEXT = {
  accepted: { text: "Token accepted", tone: "text-ok" },
  none: { text: "No token needed", tone: "text-ok" },
  refused: { text: "The agent refused this token (HTTP 401): check it before adding the agent", tone: "text-err" },
  required: { text: "The agent needs a token (HTTP 401)", tone: "text-warn" },
} as const;

/**
 * Add an A2A agent by URL and bearer token (docs/backends/a2a.md): the server reads its card
 * (`POST /api/a2a/card`) and tries the token, the card is shown, then the agent is saved. The
 * token goes to the server only; nothing sent back to the browser contains it.
 */
export function AddA2aBackend() {
  const qc = useQueryClient();
  const [label, setLabel] = useState("");
  const [url, setUrl] = useState("");
  const [token, setToken] = useState("");
  const [preview, setPreview] = useState<A2aCardPreview>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState<"card" | "save">();
  const [added, setAdded] = useState<string>();

  const config = () => ({ url: url.trim(), ...(token.trim() ? { token: token.trim() } : {}) });
  const edited = (f: (v: string) => void) => (v: string) => {
    f(v);
    setPreview(undefined);
    setAdded(undefined);
  };

  const fetchCard = async () => {
    setError(undefined);
    setAdded(undefined);
    if (!url.trim()) return setError("Enter the agent's URL");
    setBusy("card");
    try {
      setPreview(await apiSend<A2aCardPreview>("POST", "/api/a2a/card", config()));
    } catch (err) {
      setPreview(undefined);
      setError(err instanceof Error ? err.message : "Could not read the agent card");
    } finally {
      setBusy(undefined);
    }
  };

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (!preview) return void fetchCard();
    setError(undefined);
    setBusy("save");
    try {
      const def: BackendDefinition = { kind: "a2a", label: label.trim() || preview.card.name, config: config() };
      const b = await apiSend<Backend>("POST", "/api/backends", def);
      await qc.invalidateQueries({ queryKey: ["backends"] });
      setAdded(b.label);
      setLabel("");
      setUrl("");
      setToken("");
      setPreview(undefined);
    } catch (err) {
      setError(err instanceof Error ? err.message : "Could not add the agent");
    } finally {
      setBusy(undefined);
    }
  };

  return (
    <form onSubmit={(e) => void save(e)} className="rounded-lg border border-border bg-panel p-4" data-testid="add-a2a">
      <div className="grid grid-cols-1 gap-3 md:grid-cols-2">
        <label className="flex flex-col gap-1 text-[12px] text-muted md:col-span-2">
          Agent URL{" "}
          <span className="text-faint">
            its base URL (the card is read from /.well-known/agent-card.json) or the card&apos;s URL
          </span>
          <input
            className={cx(input, "font-mono")}
            value={url}
            onChange={(e) => edited(setUrl)(e.target.value)}
            placeholder="http://127.0.0.1:8000"
            data-testid="a2a-url"
            spellCheck={false}
          />
        </label>
        <label className="flex flex-col gap-1 text-[12px] text-muted">
          Bearer token <span className="text-faint">kept on the server, never shown again</span>
          <input
            className={cx(input, "font-mono")}
            type="password"
            autoComplete="off"
            value={token}
            onChange={(e) => edited(setToken)(e.target.value)}
            placeholder="A2A_BEARER_TOKEN"
            data-testid="a2a-token"
          />
        </label>
        <label className="flex flex-col gap-1 text-[12px] text-muted">
          Label <span className="text-faint">optional; default: the agent&apos;s name</span>
          <input
            className={input}
            value={label}
            onChange={(e) => setLabel(e.target.value)}
            placeholder={preview?.card.name ?? "OpenCode A2A"}
            data-testid="a2a-label"
            maxLength={100}
          />
        </label>
      </div>
      {preview && (
        <div className="mt-3 rounded-md border border-border bg-sunken px-3 py-2.5" data-testid="a2a-preview">
          <AgentCardView card={preview.card} />
          <p
            className={cx("mt-2 text-[12px]", TOKEN_TEXT[preview.token].tone)}
            data-testid="a2a-token-status"
            data-token={preview.token}
          >
            {TOKEN_TEXT[preview.token].text}
          </p>
        </div>
      )}
      <div className="mt-3 flex flex-wrap items-center gap-3">
        <button
          type="button"
          onClick={() => void fetchCard()}
          disabled={busy !== undefined}
          data-testid="a2a-fetch-card"
          className="inline-flex h-8 items-center gap-1.5 rounded-md border border-border px-3 text-[13px] text-fg hover:bg-raised disabled:opacity-50"
        >
          {busy === "card" && <Spinner size={11} />}
          {preview ? "Read the card again" : "Read the card"}
        </button>
        <button
          type="submit"
          disabled={!preview || busy !== undefined}
          data-testid="a2a-add"
          className="inline-flex h-8 items-center gap-1.5 rounded-md bg-accent px-3 text-[13px] font-medium text-accent-fg hover:opacity-90 disabled:opacity-50"
        >
          {busy === "save" && <Spinner size={11} />}
          Add agent
        </button>
        {error && (
          <span className="min-w-0 text-[12px] text-err [overflow-wrap:anywhere]" role="alert" data-testid="a2a-error">
            {error}
          </span>
        )}
        {added && (
          <span className="text-[12px] text-ok" data-testid="a2a-added">
            Added {added}. It connects in the background.
          </span>
        )}
      </div>
    </form>
  );
}
