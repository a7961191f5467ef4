/**
 * What a page of the built console (`next build`, in `.next/`) makes the browser load before it
 * can run: the chunks the page's HTML names (Next's root files and each entry's client chunks of
 * its layouts and page), gzipped the way they are served. Chunks loaded on demand (`import()`,
 * `React.lazy`, `next/dynamic`) are not in it, and neither are `nomodule` polyfills (a module-aware
 * browser never fetches them).
 *
 * `npm run bench -- bundle` prints it per page and per chunk, and (for a build made with
 * `SWITCHBOARD_SOURCE_MAPS=1 npm run build`) per package and source file; e2e/bundle-budget.spec.ts
 * holds the session page to its budget after every CI build. docs/performance.md, "JavaScript".
 */
import fs from "node:fs";
import path from "node:path";
import vm from "node:vm";
import { gzipSync } from "node:zlib";
import { SourceMapConsumer, type RawSourceMap } from "source-map-js";

/** The session page's initial JavaScript budget, gzip KB (docs/design.md). */
export const SESSION_PAGE_BUDGET_KB = 300;

/** The built pages (`.next/server/app/…`) the bench reports, by their route. */
export const PAGES: Record<string, string> = {
  "session page": "(console)/sessions/[backendId]/[sessionId]",
  "sessions list": "(console)",
  search: "(console)/search",
  settings: "(console)/settings",
  "share page": "share/[token]",
  login: "login",
};

export interface Chunk {
  file: string;
  gzipBytes: number;
  /** The entries that name it: `root` (Next's runtime) or the layout/page module. */
  entries: string[];
}

export interface PageBundle {
  route: string;
  chunks: Chunk[];
  gzipBytes: number;
}

const kb = (bytes: number) => Math.round(bytes / 102.4) / 10;

function readManifest(file: string): { entryJSFiles: Record<string, string[]> } {
  // The manifest is a script that assigns into `globalThis.__RSC_MANIFEST`: run it in a context of its own.
  const context: { __RSC_MANIFEST?: Record<string, { entryJSFiles: Record<string, string[]> }> } = {};
  vm.runInNewContext(fs.readFileSync(file, "utf8"), context);
  const manifests = Object.values(context.__RSC_MANIFEST ?? {});
  if (manifests.length !== 1) throw new Error(`${file}: expected one client reference manifest`);
  return manifests[0]!;
}

/** The initial JavaScript of one built page (`route` as in PAGES). */
export function pageBundle(route: string, nextDir = path.join(process.cwd(), ".next")): PageBundle {
  const dir = path.join(nextDir, "server", "app", route);
  const manifestFile = path.join(dir, "page_client-reference-manifest.js");
  if (!fs.existsSync(manifestFile)) throw new Error(`no build of ${route} in ${nextDir}: run \`npm run build\` first`);
  const build = JSON.parse(fs.readFileSync(path.join(dir, "page", "build-manifest.json"), "utf8")) as {
    rootMainFiles?: string[];
  };
  const named = new Map<string, Set<string>>();
  const add = (file: string, entry: string) => {
    if (!file.endsWith(".js")) return;
    const set = named.get(file) ?? new Set<string>();
    set.add(entry);
    named.set(file, set);
  };
  for (const f of build.rootMainFiles ?? []) add(f, "root");
  for (const [entry, files] of Object.entries(readManifest(manifestFile).entryJSFiles)) {
    for (const f of files) add(f, entry.replace(/^\[project\]\//, ""));
  }
  const chunks: Chunk[] = [...named].map(([file, entries]) => ({
    file,
    gzipBytes: gzipSync(fs.readFileSync(path.join(nextDir, file))).length,
    entries: [...entries],
  }));
  chunks.sort((a, b) => b.gzipBytes - a.gzipBytes);
  return { route, chunks, gzipBytes: chunks.reduce((a, c) => a + c.gzipBytes, 0) };
}

/**
 * Which packages and source files the page's chunks hold, in gzip bytes (each chunk's gzip size
 * shared out by the generated characters its source map gives each source). Null without maps.
 */
export function bundleSources(
  bundle: PageBundle,
  nextDir = path.join(process.cwd(), ".next"),
): Map<string, number> | null {
  const out = new Map<string, number>();
  for (const chunk of bundle.chunks) {
    const file = path.join(nextDir, chunk.file);
    const code = fs.readFileSync(file, "utf8");
    const ref = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(code)?.[1];
    const mapFile = ref ? path.join(path.dirname(file), ref) : `${file}.map`;
    if (!fs.existsSync(mapFile)) return null;
    const raw = JSON.parse(fs.readFileSync(mapFile, "utf8")) as
      | RawSourceMap
      | { sections: { offset: { line: number; column: number }; map: RawSourceMap }[] };
    const lineStart = [0];
    for (let i = code.indexOf("\n"); i !== -1; i = code.indexOf("\n", i + 1)) lineStart.push(i + 1);
    const chars = new Map<string, number>();
    const walk = (map: RawSourceMap, line0: number, col0: number) => {
      let prev: { at: number; source: string } | null = null;
      new SourceMapConsumer(map).eachMapping((m) => {
        const line = m.generatedLine - 1 + line0;
        const at = (lineStart[line] ?? code.length) + m.generatedColumn + (m.generatedLine === 1 ? col0 : 0);
        if (prev) chars.set(prev.source, (chars.get(prev.source) ?? 0) + Math.max(0, at - prev.at));
        prev = { at, source: m.source ?? "?" };
      });
    };
    if ("sections" in raw) for (const s of raw.sections) walk(s.map, s.offset.line, s.offset.column);
    else walk(raw, 0, 0);
    for (const [source, n] of chars) {
      const key = sourceKey(source);
      out.set(key, (out.get(key) ?? 0) + (n * chunk.gzipBytes) / code.length);
    }
  }
  return out;
}

/** A package (`micromark`, `@tanstack/query-core`) or the project's own file. */
function sourceKey(source: string): string {
  const nm = source.lastIndexOf("/node_modules/");
  if (nm !== -1) {
    const parts = source.slice(nm + "/node_modules/".length).split("/");
    return `npm:${parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]}`;
  }
  return source.replace(/^turbopack:\/\/\/\[project\]\//, "").replace(/^turbopack:\/\/\//, "");
}

/** The lines `npm run bench -- bundle` prints for one page. */
export function describeBundle(name: string, bundle: PageBundle, sources: Map<string, number> | null): string[] {
  const lines = [`${name} (${bundle.route}): ${kb(bundle.gzipBytes)} KB gzip in ${bundle.chunks.length} chunks`];
  for (const c of bundle.chunks)
    lines.push(`  ${kb(c.gzipBytes).toFixed(1).padStart(6)} KB  ${c.file}  ${c.entries.join(", ")}`);
  if (sources) {
    lines.push("  by package and source file (largest 25):");
    for (const [k, v] of [...sources].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
      lines.push(`  ${kb(v).toFixed(1).padStart(6)} KB  ${k}`);
    }
  }
  return lines;
}
