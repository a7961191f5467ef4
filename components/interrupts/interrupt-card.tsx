"use client";
import type { Interrupt } from "@/lib/model";
import { LazyInputForm as InputForm } from "./lazy-input-form";
import { PermissionCard } from "./permission-card";
import { QuestionForm } from "./question-form";

export function InterruptCard(props: {
  interrupt: Interrupt;
  backendId: string;
  sessionId: string;
  autoFocus?: boolean;
}) {
  if (props.interrupt.kind === "permission") return <PermissionCard {...props} />;
  if (props.interrupt.kind === "question") return <QuestionForm {...props} />;
  return <InputForm {...props} />;
}
