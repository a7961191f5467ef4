"use client";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { FsEntry, FsFile, FsListing } from "@/lib/workspace-api";
import { apiGet, sessionPath } from "@/lib/client/api-client";
import { requestMention } from "@/lib/client/mention-bus";
import { guessLang } from "@/lib/code-languages";
import { CodeBlock } from "../code/code-block";
import { cx } from "../ui/cx";
import { IconChevronRight, IconFile, IconFolder } from "../ui/icons";
import { Spinner } from "../ui/spinner";

const kb = (n: number) =>
  n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1048576).toFixed(1)} MB`;

/**
 * The file browser (docs/workspace.md): the session directory as a tree, each folder read when it
 * is opened, and a file shown read-only with the timeline's highlighting; "Mention" puts it in the
 * prompt as `@path` where the backend takes mentions.
 */
export function FilesView({
  backendId,
  sessionId,
  mentionable,
}: {
  backendId: string;
  sessionId: string;
  /** The backend takes `@` mentions (else the button says why not). */
  mentionable: boolean;
}) {
  const base = `${sessionPath(backendId, sessionId)}/fs`;
  const [open, setOpen] = useState<string | null>(null);
  return (
    <div className="flex min-h-0 flex-1" data-testid="files-panel">
      <div
        className="w-[40%] min-w-[170px] max-w-[260px] shrink-0 overflow-y-auto border-r border-border py-1"
        role="tree"
        aria-label="Files"
      >
        <Folder base={base} path="" depth={0} open={open} onOpen={setOpen} />
      </div>
      <div className="flex min-w-0 flex-1 flex-col">
        {open ? (
          <FileView base={base} path={open} mentionable={mentionable} />
        ) : (
          <p className="grid flex-1 place-items-center p-6 text-center text-[12.5px] text-faint">
            Pick a file to read it.
          </p>
        )}
      </div>
    </div>
  );
}

function Folder({
  base,
  path,
  depth,
  open,
  onOpen,
}: {
  base: string;
  path: string;
  depth: number;
  open: string | null;
  onOpen(p: string): void;
}) {
  const q = useQuery({
    queryKey: ["fs", base, path],
    queryFn: () => apiGet<FsListing>(`${base}?path=${encodeURIComponent(path)}`),
  });
  if (q.isPending)
    return (
      <div className="flex h-6 items-center px-3" style={{ paddingLeft: 12 + depth * 12 }}>
        <Spinner />
      </div>
    );
  if (q.isError)
    return (
      <p className="px-3 py-1 text-[12px] text-err" style={{ paddingLeft: 12 + depth * 12 }}>
        {q.error instanceof Error ? q.error.message : "Could not list the folder"}
      </p>
    );
  return (
    <ul role={depth ? "group" : undefined}>
      {q.data.entries.map((e) => (
        <Entry key={e.path} base={base} entry={e} depth={depth} open={open} onOpen={onOpen} />
      ))}
      {q.data.truncated ? (
        <li className="px-3 py-0.5 text-[11.5px] text-faint" style={{ paddingLeft: 12 + depth * 12 }}>
          … and {q.data.truncated} more
        </li>
      ) : null}
      {q.data.entries.length === 0 ? (
        <li className="px-3 py-0.5 text-[11.5px] text-faint" style={{ paddingLeft: 12 + depth * 12 }}>
          empty
        </li>
      ) : null}
    </ul>
  );
}

function Entry({
  base,
  entry,
  depth,
  open,
  onOpen,
}: {
  base: string;
  entry: FsEntry;
  depth: number;
  open: string | null;
  onOpen(p: string): void;
}) {
  const [expanded, setExpanded] = useState(false);
  const dir = entry.type === "dir";
  const selected = open === entry.path;
  return (
    <li role="treeitem" aria-expanded={dir ? expanded : undefined} aria-selected={selected}>
      <button
        type="button"
        disabled={entry.type === "link"}
        title={entry.type === "link" ? "A link that leads outside the session's directory" : entry.path}
        onClick={() => (dir ? setExpanded((x) => !x) : onOpen(entry.path))}
        data-testid="fs-entry"
        data-path={entry.path}
        data-type={entry.type}
        className={cx(
          "flex h-6 w-full items-center gap-1.5 pr-2 text-left text-[12.5px] disabled:opacity-45",
          selected ? "bg-raised text-fg" : "text-muted hover:bg-raised/60 hover:text-fg",
        )}
        style={{ paddingLeft: 8 + depth * 12 }}
      >
        {dir ? (
          <IconChevronRight
            size={11}
            className={cx("shrink-0 text-faint transition-transform", expanded && "rotate-90")}
          />
        ) : (
          <span className="w-[11px] shrink-0" />
        )}
        {dir ? (
          <IconFolder size={13} className="shrink-0 text-faint" />
        ) : (
          <IconFile size={13} className="shrink-0 text-faint" />
        )}
        <span className="min-w-0 truncate">{entry.name}</span>
      </button>
      {dir && expanded ? <Folder base={base} path={entry.path} depth={depth + 1} open={open} onOpen={onOpen} /> : null}
    </li>
  );
}

function FileView({ base, path, mentionable }: { base: string; path: string; mentionable: boolean }) {
  const q = useQuery({
    queryKey: ["fs-file", base, path],
    queryFn: () => apiGet<FsFile>(`${base}/file?path=${encodeURIComponent(path)}`),
  });
  return (
    <>
      <div className="flex h-8 shrink-0 items-center gap-2 border-b border-border px-3 text-[12px]">
        <span className="min-w-0 flex-1 truncate font-mono text-fg" data-testid="fs-file-path" title={path}>
          {path}
        </span>
        {q.data ? <span className="text-faint">{kb(q.data.size)}</span> : null}
        <button
          type="button"
          onClick={() => requestMention(path)}
          disabled={!mentionable}
          title={mentionable ? "Mention this file in the prompt (@)" : "This backend takes no file mentions"}
          data-testid="fs-mention"
          className="rounded border border-border px-2 py-0.5 text-[11.5px] font-medium text-muted hover:bg-raised hover:text-fg disabled:opacity-45"
        >
          @ Mention
        </button>
      </div>
      <div className="min-h-0 flex-1 overflow-auto p-2" data-testid="fs-file">
        {q.isPending ? (
          <Spinner />
        ) : q.isError ? (
          <p className="text-[12.5px] text-err">
            {q.error instanceof Error ? q.error.message : "Could not read the file"}
          </p>
        ) : q.data.tooLarge ? (
          <p className="text-[12.5px] text-muted">
            This file is {kb(q.data.size)}: larger than 1 MB, so it is not shown here.
          </p>
        ) : q.data.binary ? (
          <p className="text-[12.5px] text-muted">This is a binary file ({kb(q.data.size)}): it is not shown here.</p>
        ) : q.data.text === "" ? (
          <p className="text-[12.5px] text-faint">Empty file</p>
        ) : (
          <CodeBlock code={q.data.text ?? ""} lang={guessLang(path)} showLineNumbers bare />
        )}
      </div>
    </>
  );
}
