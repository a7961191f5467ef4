"use client";
/**
 * The input form, loaded when the first form is shown: its validation (lib/input-form.ts) builds zod
 * schemas, and zod is the largest part of that code, which a session page without a form never needs
 * (docs/performance.md, "session page JavaScript").
 */
import { lazy, Suspense, type ComponentProps } from "react";
import type { InputForm } from "./input-form";

const Form = lazy(() => import("./input-form").then((m) => ({ default: m.InputForm })));

export function LazyInputForm(props: ComponentProps<typeof InputForm>) {
  return (
    <Suspense
      fallback={
        <div
          className="h-24 rounded-lg border border-accent/45 bg-accent/[0.05]"
          aria-busy="true"
          aria-label="Loading the form"
        />
      }
    >
      <Form {...props} />
    </Suspense>
  );
}
