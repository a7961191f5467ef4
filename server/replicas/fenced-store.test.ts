import { describe, expect, it } from "vitest";
import type { LiveStore, StoredTranscript } from "../store/store";
import { fencedStore } from "./fenced-store";

describe("a backend's store in replica mode", () => {
  it("writes the backend's transcripts and settings only while the lease is this replica's; reads always", () => {
    const written: string[] = [];
    const kept = { backendId: "zot", sessionId: "s1" } as StoredTranscript;
    const store = {
      putTranscript: (t: StoredTranscript) => written.push(`put ${t.sessionId}`),
      deleteTranscript: (_b: string, s: string) => written.push(`delete ${s}`),
      deleteTranscripts: (b: string) => written.push(`delete all ${b}`),
      setMeta: (k: string) => written.push(`meta ${k}`),
      getTranscript: () => kept,
      getMeta: () => "v",
    } as unknown as LiveStore;
    let held = true;
    const fenced = fencedStore(store, "zot", () => held);
    fenced.putTranscript(kept);
    fenced.setMeta("k", "1");
    held = false; // stalled past the lease: another replica owns the backend now
    fenced.putTranscript(kept);
    fenced.deleteTranscript("zot", "s1");
    fenced.deleteTranscripts("zot");
    fenced.setMeta("k", "2");
    expect(written).toEqual(["put s1", "meta k"]);
    expect(fenced.getTranscript("zot", "s1")).toBe(kept);
    expect(fenced.getMeta("k")).toBe("v");
  });
});
