import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import type { ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { Interrupt } from "@/lib/model";
import { QuestionForm } from "./question-form";

const plan = (question: string, markdown?: boolean): Interrupt => ({
  id: "plan_1",
  sessionId: "s1",
  kind: "question",
  createdAt: 1,
  title: "Review the plan",
  questions: [
    {
      header: "Plan",
      question,
      ...(markdown ? { markdown } : {}),
      options: [{ label: "Accept" }, { label: "Keep planning" }],
      custom: true,
    },
  ],
});

/** Rendered as the console renders it: inside a query client (the answer buttons ask who is signed in). */
const render = (el: ReactElement) =>
  renderToStaticMarkup(<QueryClientProvider client={new QueryClient()}>{el}</QueryClientProvider>);

describe("QuestionForm", () => {
  it("renders a markdown question (a plan to review) as markdown, inert", () => {
    const html = render(
      <QuestionForm
        interrupt={plan('## Steps\n\n- add **greet**\n\n<img src=x onerror="alert(1)">', true)}
        backendId="copilot"
        sessionId="s1"
      />,
    );
    expect(html).toContain("<strong>greet</strong>");
    expect(html).toContain("<h2");
    expect(html).not.toContain("<img");
    expect(html).toContain("Accept");
    expect(html).toContain("Keep planning");
  });

  it("keeps a plain question as text", () => {
    const html = render(<QuestionForm interrupt={plan("Tabs or **spaces**?")} backendId="copilot" sessionId="s1" />);
    expect(html).toContain("Tabs or **spaces**?");
    expect(html).not.toContain("<strong>");
  });
});
