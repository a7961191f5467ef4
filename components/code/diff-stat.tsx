/** The +added −removed counts of a diff. */
import { cx } from "@/components/ui/cx";

export function DiffStat({
  additions,
  deletions,
  className,
}: {
  additions: number;
  deletions: number;
  className?: string;
}) {
  return (
    <span className={cx("inline-flex shrink-0 items-center gap-1.5 font-mono text-[11.5px] tabular-nums", className)}>
      {additions > 0 || deletions === 0 ? <span className="text-add">+{additions}</span> : null}
      {deletions > 0 ? <span className="text-del">−{deletions}</span> : null}
    </span>
  );
}
