// The source's shape rules (docs/testing.md): no import cycles, type-only imports included, nothing
// outside e2e/ importing from it (the test kit is testkit/), line limits per kind of file, and replica
// mode layered on (docs/architecture.md, "The composition root"). Imports are read with the TypeScript compiler already installed.
// `node --import tsx scripts/source-shape.ts` prints the findings; scripts/source-shape.test.ts fails on any.
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

const root = path.resolve(import.meta.dirname, "..");

/** The folders of TypeScript source: the product, its tests and test kit, scripts and the benchmark. */
export const sourceFolders = ["server", "app", "components", "lib", "testkit", "e2e", "scripts", "bench"] as const;
/** TypeScript files at the root of the repository. */
const rootFiles = ["proxy.ts", "instrumentation.ts", "playwright.config.ts", "vitest.config.ts"];

export interface SizeRule {
  /** Which files, relative to the repository root, with forward slashes. */
  readonly applies: (file: string) => boolean;
  readonly maxLines: number;
  readonly what: string;
}

export const sizeRules: readonly SizeRule[] = [
  {
    what: "backend source file",
    applies: (f) => f.startsWith("server/backends/") && /\.tsx?$/.test(f) && !/\.(test|d)\.tsx?$/.test(f),
    maxLines: 500,
  },
  {
    what: "component",
    applies: (f) => f.startsWith("components/") && f.endsWith(".tsx") && !f.endsWith(".test.tsx"),
    maxLines: 400,
  },
];

function walk(dir: string, out: string[]): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else if (/\.(ts|tsx|mts)$/.test(entry.name)) out.push(full);
  }
}

/** Every source file, as paths relative to the repository root with forward slashes. */
export function sourceFiles(): string[] {
  const out: string[] = [];
  for (const folder of sourceFolders) walk(path.join(root, folder), out);
  for (const file of rootFiles) if (fs.existsSync(path.join(root, file))) out.push(path.join(root, file));
  return out.map(rel).sort();
}

function rel(file: string): string {
  return path.relative(root, file).split(path.sep).join("/");
}

function compilerOptions(): ts.CompilerOptions {
  const configPath = path.join(root, "tsconfig.json");
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  return ts.convertCompilerOptionsFromJson(config.config.compilerOptions, root, configPath).options;
}

/** Each source file's imports of other source files: static, `import type`, re-exports and `import()`. */
export function importGraph(files: readonly string[] = sourceFiles()): Map<string, string[]> {
  const options = compilerOptions();
  const host = ts.createCompilerHost(options);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = fs.readFileSync(path.join(root, file), "utf8");
    const { importedFiles } = ts.preProcessFile(text, true, true);
    const targets = new Set<string>();
    for (const { fileName } of importedFiles) {
      const resolved = ts.resolveModuleName(fileName, path.join(root, file), options, host).resolvedModule;
      if (!resolved || resolved.isExternalLibraryImport) continue;
      const target = rel(resolved.resolvedFileName);
      if (known.has(target) && target !== file) targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/** The import cycles: each strongly connected group of two or more files, plus one cycle through it. */
export function importCycles(graph: Map<string, string[]> = importGraph()): string[][] {
  // Tarjan's strongly connected components, iteratively (the graph has over a thousand files).
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const groups: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; edge: number }[] = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++]!;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const group: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          group.push(member);
        } while (member !== frame.node);
        if (group.length > 1) groups.push(group.sort());
      }
    }
  }
  return groups.map((group) => oneCycle(graph, group));
}

/** A shortest cycle through the group's first file, so a finding names the imports to cut. */
function oneCycle(graph: Map<string, string[]>, group: string[]): string[] {
  const inGroup = new Set(group);
  const start = group[0]!;
  const from = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    for (const to of graph.get(node) ?? []) {
      if (!inGroup.has(to)) continue;
      if (to === start) {
        const cycle = [node];
        while (cycle[0] !== start) cycle.unshift(from.get(cycle[0]!)!);
        return [...cycle, start];
      }
      if (!from.has(to)) {
        from.set(to, node);
        queue.push(to);
      }
    }
  }
  return group;
}

/**
 * Imports of e2e/ from outside it, as "file -> target": e2e/ holds the Playwright specs, page objects
 * and fixture glue only; source files, unit tests, scripts and the benchmark use testkit/.
 */
export function importsIntoE2e(graph: Map<string, string[]> = importGraph()): string[] {
  const found: string[] = [];
  for (const [file, targets] of graph) {
    if (file.startsWith("e2e/")) continue;
    for (const target of targets) if (target.startsWith("e2e/")) found.push(`${file} -> ${target}`);
  }
  return found;
}

/** Files over their kind's line limit, as "file: lines > limit (kind)". */
export function oversizedFiles(files: readonly string[] = sourceFiles()): string[] {
  const found: string[] = [];
  for (const file of files) {
    const rule = sizeRules.find((r) => r.applies(file));
    if (!rule) continue;
    const text = fs.readFileSync(path.join(root, file), "utf8");
    const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    if (lines > rule.maxLines) found.push(`${file}: ${lines} lines > ${rule.maxLines} (${rule.what})`);
  }
  return found;
}

/** Replica mode's folder: only the composition root reaches into it from outside. */
const REPLICAS = "server/replicas/";

/** The one file outside server/replicas/ that may import it: the composition root. */
export const replicaImporters: readonly string[] = ["server/app.ts"];

/** Imports of server/replicas/ from outside it (and the allowed importers), as "file -> target". */
export function replicaImportsOutside(graph: Map<string, string[]> = importGraph()): string[] {
  const found: string[] = [];
  for (const [file, targets] of graph) {
    if (file.startsWith(REPLICAS) || replicaImporters.includes(file)) continue;
    for (const target of targets) if (target.startsWith(REPLICAS)) found.push(`${file} -> ${target}`);
  }
  return found;
}

/**
 * Backends know nothing of leases: the lines of source files under `folder` (server/backends/) that
 * say "lease" at a word's start ("release" and "please" are other words), as "file:line".
 */
export function leaseMentions(files: readonly string[] = sourceFiles(), folder = "server/backends/"): string[] {
  const found: string[] = [];
  for (const file of files) {
    if (!file.startsWith(folder)) continue;
    const lines = fs.readFileSync(path.join(root, file), "utf8").split("\n");
    lines.forEach((line, i) => {
      if (/\blease/i.test(line)) found.push(`${file}:${i + 1}`);
    });
  }
  return found;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const files = sourceFiles();
  const graph = importGraph(files);
  const cycles = importCycles(graph);
  for (const cycle of cycles) console.log(`cycle: ${cycle.join(" -> ")}`);
  for (const line of importsIntoE2e(graph)) console.log(`imports e2e/: ${line}`);
  for (const line of oversizedFiles(files)) console.log(`size: ${line}`);
  for (const line of replicaImportsOutside(importGraph(files))) console.log(`replicas imported from outside: ${line}`);
  for (const line of leaseMentions(files)) console.log(`lease under server/backends: ${line}`);
  console.log(`${files.length} files, ${cycles.length} cycles`);
}
