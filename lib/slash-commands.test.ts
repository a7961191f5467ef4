import { describe, expect, it } from "vitest";
import { commandMatches } from "./slash-commands";

const commands = ["review", "init", "compact", "preview"].map((name) => ({ name }));

describe("slash command matches", () => {
  it("lists names starting with the word first, then names containing it", () => {
    expect(commandMatches("/rev", commands).map((c) => c.name)).toEqual(["review", "preview"]);
    expect(commandMatches("/", commands)).toHaveLength(4);
  });

  it("offers nothing once the command has an argument, or without commands", () => {
    expect(commandMatches("/review now", commands)).toEqual([]);
    expect(commandMatches("review", commands)).toEqual([]);
    expect(commandMatches("/rev", undefined)).toEqual([]);
  });
});
