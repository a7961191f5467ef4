import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { ReviewComment } from "@/lib/review-comments";
import { type DiffReview, DiffView } from "./diff-view";

const patch = ["@@ -1,3 +1,3 @@", " const a = 1;", "-const b = 2;", "+const b = 20;", " const c = 3;", ""].join("\n");

const comment = (over: Partial<ReviewComment> = {}): ReviewComment => ({
  id: "c1",
  path: "src/a.ts",
  side: "new",
  start: 2,
  end: 2,
  code: "const b = 20;",
  diff: false,
  text: '<img src=x onerror="alert(1)"> why 20?',
  createdAt: 1,
  ...over,
});

const review = (comments: ReviewComment[]): DiffReview => ({
  comments,
  onSave: () => {},
  onEdit: () => {},
  onDrop: () => {},
});

describe("DiffView review comments", () => {
  it("without a review, line numbers stay plain text", () => {
    const html = renderToStaticMarkup(<DiffView patch={patch} path="src/a.ts" />);
    expect(html).not.toContain("diff-line-pick");
  });

  it("unified: each line's gutter is a named button; a saved comment shows, as text, under its line", () => {
    const html = renderToStaticMarkup(<DiffView patch={patch} path="src/a.ts" review={review([comment()])} />);
    expect(html.match(/data-testid="diff-line-pick"/g)).toHaveLength(4);
    expect(html).toContain('aria-label="Comment on removed line 2"');
    expect(html).toContain('aria-label="Comment on line 2"');
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt; why 20?");
    expect(html).not.toContain("<img");
    // Under the added line 2, before the context line 3.
    const at = html.indexOf('data-testid="inline-comment"');
    expect(at).toBeGreaterThan(html.indexOf("const b = 20;"));
    expect(at).toBeLessThan(html.indexOf("const c = 3;"));
  });

  it("split: both sides pick; an old-side comment shows under its removed line", () => {
    const html = renderToStaticMarkup(
      <DiffView
        patch={patch}
        path="src/a.ts"
        layout="split"
        review={review([comment({ side: "old", code: "const b = 2;", text: "was fine" })])}
      />,
    );
    expect(html).toContain('aria-label="Comment on removed line 2"');
    expect(html).toContain('aria-label="Comment on line 2"');
    expect(html).toContain('aria-label="Comment on old line 3"');
    expect(html.match(/data-testid="diff-line-pick"/g)).toHaveLength(6);
    const at = html.indexOf('data-testid="inline-comment"');
    expect(at).toBeGreaterThan(html.indexOf("const b = 2;"));
    expect(at).toBeLessThan(html.indexOf("const c = 3;"));
  });

  it("a comment on a line this diff does not show stays in the tray only", () => {
    const html = renderToStaticMarkup(
      <DiffView patch={patch} path="src/a.ts" review={review([comment({ start: 40, end: 41 })])} />,
    );
    expect(html).not.toContain("inline-comment");
  });
});
