"use client";
import { Spinner } from "../ui/spinner";

/** Where the review panel will be while its code loads: the same width, so nothing jumps. */
export function PanelPlaceholder() {
  return (
    <aside
      aria-label="Review"
      aria-busy="true"
      className="grid h-full w-[min(640px,48vw)] min-w-[360px] shrink-0 place-items-center border-l border-border bg-panel narrow:absolute narrow:inset-y-0 narrow:right-0 narrow:z-30 narrow:w-[min(640px,100%)] phone:fixed phone:inset-0 phone:z-[55] phone:w-full phone:min-w-0"
    >
      <Spinner />
    </aside>
  );
}
