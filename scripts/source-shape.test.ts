import { describe, expect, it } from "vitest";
import {
  importCycles,
  importGraph,
  importsIntoE2e,
  leaseMentions,
  oversizedFiles,
  replicaImportsOutside,
  sourceFiles,
} from "./source-shape";

describe("the source's shape", () => {
  const files = sourceFiles();
  const graph = importGraph(files);

  it("reads the import graph: static, type-only, re-exported and dynamic imports, `@/` paths resolved", () => {
    // Guards against a walk that silently finds nothing (every cycle check would then pass).
    expect(files.length).toBeGreaterThan(300);
    expect(graph.get("server/backends/opal/adapter.ts")).toContain("server/backends/opal/context.ts");
    expect(graph.get("server/backends/opal/context.ts")).toContain("server/backends/opal/options.ts"); // import type
    expect(graph.get("testkit/scripted-model.ts")).toContain("testkit/scripted-wire.ts"); // export type … from
    expect(graph.get("server/backends/opal/adapter.ts")).toContain("lib/model.ts"); // "@/lib/model"
  });

  it("finds a cycle when there is one, and names the files in it", () => {
    const g = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts", "d.ts"]],
      ["d.ts", []],
      ["e.ts", ["e.ts", "d.ts"]],
    ]);
    expect(importCycles(g)).toEqual([["a.ts", "b.ts", "c.ts", "a.ts"]]);
  });

  it("has no import cycles, type-only imports included (move the shared types to a small file of their own)", () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it("finds an import of e2e/ from outside it, and none from inside", () => {
    const g = new Map([
      ["server/a.test.ts", ["e2e/fixtures/zot.ts", "testkit/scripted-model.ts"]],
      ["e2e/zot.spec.ts", ["e2e/fixtures/zot.ts", "testkit/fake-zot-stack.ts"]],
      ["testkit/fake-zot-stack.ts", ["testkit/console.ts"]],
      ["scripts/demo.ts", ["e2e/pages/session-page.ts"]],
    ]);
    expect(importsIntoE2e(g)).toEqual([
      "server/a.test.ts -> e2e/fixtures/zot.ts",
      "scripts/demo.ts -> e2e/pages/session-page.ts",
    ]);
  });

  it("has nothing outside e2e/ importing from e2e/ (source files, unit tests, scripts, bench: use testkit/)", () => {
    expect(graph.get("e2e/zot.spec.ts")).toContain("e2e/fixtures/zot.ts"); // the walk sees e2e/ imports
    expect(importsIntoE2e(graph)).toEqual([]);
  });

  it("keeps backend source files within 500 lines and components within 400 (split along a seam)", () => {
    expect(oversizedFiles(files)).toEqual([]);
  });

  it("finds an import of server/replicas/ from outside it, and lets the composition root and the folder itself import it", () => {
    const g = new Map([
      ["server/live.ts", ["server/replicas/forward.ts", "server/hub/hub.ts"]],
      ["server/app.ts", ["server/replicas/replica-mode.ts"]],
      ["server/replicas/replica-mode.ts", ["server/replicas/forward.ts"]],
    ]);
    expect(replicaImportsOutside(g)).toEqual(["server/live.ts -> server/replicas/forward.ts"]);
  });

  it("imports server/replicas/ only from server/replicas/ and the composition root (server/app.ts)", () => {
    // The graph holds the replica parts' importers today (guards against a walk that finds nothing).
    expect(graph.get("server/app.ts")).toContain("server/replicas/replica-mode.ts");
    expect(replicaImportsOutside(graph)).toEqual([]);
  });

  it("says nothing of leases under server/backends/ (the registry asks placement where a backend runs)", () => {
    // The check finds them where they belong (guards against a search that never matches).
    expect(leaseMentions(files, "server/replicas/")).toContain("server/replicas/lease.ts:7");
    expect(leaseMentions(files)).toEqual([]);
  });
});
