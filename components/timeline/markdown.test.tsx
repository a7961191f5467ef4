import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Markdown, safeUrl } from "./markdown";

/** The rendered markup, without the newlines between elements (the markdown renderer keeps the source's). */
const html = (text: string) =>
  renderToStaticMarkup(<Markdown text={text} />)
    .replace(/>\n+/g, ">")
    .replace(/\n+</g, "<");

describe("Markdown", () => {
  it("renders the common blocks and inlines as elements", () => {
    const out = html(
      "# Title\n\nSome **bold**, *em*, ~~gone~~ and `code`.\n\n> quoted\n\n1. one\n2. two\n\n---\n\nline one  \nline two",
    );
    expect(out).toContain("<h1>Title</h1>");
    expect(out).toContain("<strong>bold</strong>");
    expect(out).toContain("<em>em</em>");
    expect(out).toContain("<del>gone</del>");
    expect(out).toContain("<code>code</code>");
    expect(out).toContain("<blockquote><p>quoted</p></blockquote>");
    expect(out).toContain("<ol><li>one</li><li>two</li></ol>");
    expect(out).toContain("<hr/>");
    expect(out).toContain("line one<br/>line two");
  });

  it("keeps an ordered list's start and nested lists", () => {
    expect(html("3. c\n4. d")).toContain('<ol start="3"><li>c</li><li>d</li></ol>');
    expect(html("- a\n  - nested\n- b")).toContain("<ul><li>a<ul><li>nested</li></ul></li><li>b</li></ul>");
  });

  it("renders GFM tables with their alignment, and task lists with static checkboxes", () => {
    const table = html("| a | b |\n|:-|-:|\n| 1 | `c` |");
    expect(table).toContain(
      '<div class="max-w-full overflow-x-auto"><table><thead><tr><th style="text-align:left">a</th>',
    );
    expect(table).toContain('<td style="text-align:right"><code>c</code></td>');
    const tasks = html("- [x] done\n- [ ] todo");
    expect(tasks).toContain('style="list-style:none;padding-left:0.2em"');
    expect(tasks).toMatch(/<li[^>]*><input type="checkbox" [^>]*checked=""[^>]*\/> ?done<\/li>/);
    expect(tasks).toMatch(/<li[^>]*><input type="checkbox" (?![^>]*checked)[^>]*disabled=""[^>]*\/> ?todo<\/li>/);
  });

  it("shows HTML in the source as text, never as elements", () => {
    const out = html(
      '<img src=x onerror="alert(1)">\n\nHi <b onclick="x()">there</b>\n\n<div>\n<script>alert(2)</script>\n</div>',
    );
    expect(out).not.toMatch(/<img|<b |<b>|<div>|<script/);
    expect(out).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    expect(out).toContain("Hi &lt;b onclick=&quot;x()&quot;&gt;there&lt;/b&gt;");
    expect(out).toContain("&lt;script&gt;alert(2)&lt;/script&gt;");
  });

  it("keeps only http(s) and mailto links, opened in a new tab; never loads an image", () => {
    const ok = html('[docs](https://example.com/a "Docs") and https://bare.example/x');
    expect(ok).toContain(
      '<a href="https://example.com/a" title="Docs" target="_blank" rel="noopener noreferrer nofollow">docs</a>',
    );
    expect(ok).toContain('<a href="https://bare.example/x"');
    const bad = html("[x](javascript:alert(1)) [y](JavaScript:alert(1)) [z](/relative) [w](data:text/html,x)");
    expect(bad).not.toContain("<a ");
    expect(bad.match(/Link removed/g)).toHaveLength(4);
    const img = html("![a cat](http://tracker.example/pixel.png)");
    expect(img).not.toContain("<img");
    expect(img).toContain('title="Image not loaded: http://tracker.example/pixel.png"');
    expect(img).toContain("a cat");
  });

  it("resolves reference links against definitions anywhere in the chunk", () => {
    const out = html("> See [the docs][d].\n>\n> [d]: https://docs.example/a");
    expect(out).toContain('<a href="https://docs.example/a" title="https://docs.example/a"');
    expect(out).toContain(">the docs</a>");
    expect(out).not.toContain("[d]");
  });

  it("decodes character references in text, not in code", () => {
    expect(html("Tom &amp; Jerry &copy; &#169; &nosuch;")).toContain("<p>Tom &amp; Jerry © © &amp;nosuch;</p>");
    expect(html("`&amp;`")).toContain("<code>&amp;amp;</code>");
    expect(html("a \\*not em\\*")).toContain("<p>a *not em*</p>");
  });

  it("hands fenced code to the code block with the fence's language", () => {
    const out = html('```ts title="x.ts"\nconst a = 1;\n```');
    expect(out).toContain("const a = 1;");
    expect(out).not.toContain("```");
  });

  it("safeUrl refuses schemes hidden by control characters", () => {
    expect(safeUrl("java\u0000script:alert(1)")).toBeUndefined();
    expect(safeUrl(" https://a.example ")).toBe("https://a.example/");
    expect(safeUrl("mailto:a@b.c")).toBe("mailto:a@b.c");
  });
});
