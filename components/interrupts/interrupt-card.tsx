"use client";
import type { Interrupt } from "@/lib/model";
import { IconInfo } from "../ui/icons";
import { PermissionCard } from "./permission-card";
import { QuestionForm } from "./question-form";

export function InterruptCard(props: { interrupt: Interrupt; backendId: string; sessionId: string; autoFocus?: boolean }) {
  if (props.interrupt.kind === "permission") return <PermissionCard {...props} />;
  if (props.interrupt.kind === "question") return <QuestionForm {...props} />;
  return (
    <div className="flex items-center gap-2 rounded-lg border border-border bg-panel px-3 py-2 text-[12.5px] text-muted" data-testid="input-request">
      <IconInfo className="size-4" /> {props.interrupt.input?.prompt ?? props.interrupt.title}
    </div>
  );
}
