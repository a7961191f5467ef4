import { cx } from "./cx";

/** Splits a path into its directory (with trailing slash) and basename. */
export function splitPath(path: string): { dir: string; base: string } {
  const norm = path.replace(/\\/g, "/").replace(/\/+$/, "");
  const i = norm.lastIndexOf("/");
  if (i < 0) return { dir: "", base: norm };
  return { dir: norm.slice(0, i + 1), base: norm.slice(i + 1) };
}

/** A shorter, "relative-ish" directory: home → ~, a `base` prefix removed, long paths keep the tail. */
export function shortDir(dir: string, base?: string, keep = 3): string {
  let d = dir;
  if (base) {
    const b = base.replace(/\\/g, "/").replace(/\/?$/, "/");
    if (d.startsWith(b)) d = d.slice(b.length);
  }
  d = d.replace(/^\/(?:home|Users)\/[^/]+\//, "~/");
  const parts = d.split("/").filter(Boolean);
  if (parts.length > keep) return `…/${parts.slice(-keep).join("/")}/`;
  return d;
}

/** A file path as "basename  dir/": the name in medium weight, the directory faint; full path on hover. */
export function FilePath({
  path,
  base,
  className,
  mono = false,
}: {
  path: string;
  /** A directory to show paths relative to (e.g. the session's working directory). */
  base?: string;
  className?: string;
  mono?: boolean;
}) {
  const { dir, base: name } = splitPath(path);
  const d = shortDir(dir, base);
  return (
    <span
      className={cx("flex min-w-0 items-baseline gap-1.5", mono && "font-mono text-[12px]", className)}
      title={path}
    >
      <span className="max-w-full shrink-0 truncate font-medium text-fg">{name || path}</span>
      {d ? <span className="min-w-0 truncate text-faint">{d}</span> : null}
    </span>
  );
}
