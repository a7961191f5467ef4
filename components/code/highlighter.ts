/**
 * The highlighter itself: shiki's fine-grained parts (its core, the JavaScript regex engine, the
 * language map — each grammar is its own chunk, loaded on first use — and the two themes), and the
 * conversion of its tokens into plain data (`TokLine[]`: text and colours, never HTML). It runs in
 * the highlight worker (./highlight.worker.ts) for large inputs and on the main thread for small
 * ones (./code-block.tsx). The full shiki bundle also carries the WebAssembly engine and its loader,
 * which the console never uses.
 */
import type { BundledLanguage, HighlighterCore } from "shiki";

/** One token with both theme colours; undefined colour = the theme's default foreground. */
export interface Tok {
  content: string;
  light?: string;
  dark?: string;
  italic?: boolean;
  bold?: boolean;
}
export type TokLine = Tok[];

let highlighterPromise: Promise<{ hl: HighlighterCore; langs: typeof import("shiki/langs").bundledLanguages }> | null =
  null;
const langLoads = new Map<string, Promise<boolean>>();

function getHighlighter() {
  highlighterPromise ??= Promise.all([
    import("shiki/core"),
    import("shiki/engine/javascript"),
    import("shiki/langs"),
  ]).then(async ([core, engine, { bundledLanguages }]) => {
    const hl = await core.createHighlighterCore({
      themes: [import("shiki/themes/github-light-high-contrast.mjs"), import("shiki/themes/github-dark.mjs")],
      langs: [],
      engine: engine.createJavaScriptRegexEngine({ forgiving: true }),
    });
    return { hl, langs: bundledLanguages };
  });
  return highlighterPromise;
}

async function ensureLang(lang: string): Promise<HighlighterCore | null> {
  const { hl, langs } = await getHighlighter();
  if (!Object.hasOwn(langs, lang)) return null;
  let load = langLoads.get(lang);
  if (!load) {
    load = hl.loadLanguage(langs[lang as BundledLanguage]).then(
      () => true,
      () => false,
    );
    langLoads.set(lang, load);
  }
  return (await load) ? hl : null;
}

/** Tokens of `code` in `lang` (a normalized shiki language id); null when the language is unknown. */
export async function highlightTokens(code: string, lang: string): Promise<TokLine[] | null> {
  const hl = await ensureLang(lang);
  if (!hl) return null;
  const lightFg = hl.getTheme("github-light-high-contrast").fg.toLowerCase();
  const darkFg = hl.getTheme("github-dark").fg.toLowerCase();
  const raw = hl.codeToTokensWithThemes(code, {
    lang: lang as BundledLanguage,
    themes: { light: "github-light-high-contrast", dark: "github-dark" },
    tokenizeMaxLineLength: 2000,
  });
  return raw.map((line) => {
    const out: Tok[] = [];
    for (const t of line) {
      const l = t.variants.light;
      const d = t.variants.dark;
      const light = l?.color && l.color.toLowerCase() !== lightFg ? l.color : undefined;
      const dark = d?.color && d.color.toLowerCase() !== darkFg ? d.color : undefined;
      const fs = l?.fontStyle ?? 0;
      const italic = (fs & 1) !== 0;
      const bold = (fs & 2) !== 0;
      const prev = out[out.length - 1];
      // Merge neighbours with identical styling, and whitespace into anything.
      if (
        prev &&
        ((prev.light === light && prev.dark === dark && prev.italic === italic && prev.bold === bold) ||
          /^\s+$/.test(t.content))
      ) {
        prev.content += t.content;
      } else {
        out.push({ content: t.content, light, dark, italic: italic || undefined, bold: bold || undefined });
      }
    }
    return out;
  });
}
