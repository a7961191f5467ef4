import { describe, expect, it } from "vitest";
import { attachmentError, attachmentKind, attachmentMime, MAX_ATTACHMENT_BYTES, parseDataUrl } from "./attachments";

const both = { images: true, files: true };
const none = { count: 0, bytes: 0 };

describe("attachments", () => {
  it("names a source file the browser left untyped as text, and sorts images from files", () => {
    expect(attachmentMime({ name: "main.rs", type: "" })).toBe("text/plain");
    expect(attachmentMime({ name: "Makefile", type: "" })).toBe("text/plain");
    expect(attachmentMime({ name: "blob.bin", type: "" })).toBe("application/octet-stream");
    expect(attachmentKind("image/png")).toBe("image");
    expect(attachmentKind("application/json")).toBe("file");
    expect(attachmentKind("application/pdf")).toBe("file");
    expect(attachmentKind("image/svg+xml")).toBeUndefined(); // never rendered from a prompt
    expect(attachmentKind("application/zip")).toBeUndefined();
  });

  it("says why a file cannot go, and lets the others", () => {
    expect(attachmentError({ name: "a.png", type: "image/png", size: 10 }, both, none)).toBeUndefined();
    expect(
      attachmentError({ name: "a.png", type: "image/png", size: 10 }, { images: false, files: true }, none),
    ).toMatch(/does not take images/);
    expect(
      attachmentError({ name: "a.txt", type: "text/plain", size: 10 }, { images: true, files: false }, none),
    ).toMatch(/images only/);
    expect(attachmentError({ name: "a.zip", type: "application/zip", size: 10 }, both, none)).toMatch(
      /cannot be attached/,
    );
    expect(attachmentError({ name: "big.png", type: "image/png", size: MAX_ATTACHMENT_BYTES + 1 }, both, none)).toMatch(
      /at most 5\.0 MB/,
    );
    expect(attachmentError({ name: "a.png", type: "image/png", size: 10 }, both, { count: 10, bytes: 0 })).toMatch(
      /At most 10/,
    );
    expect(
      attachmentError({ name: "a.png", type: "image/png", size: 3_000_000 }, both, { count: 1, bytes: 5_000_000 }),
    ).toMatch(/past 7\.0 MB/);
    expect(attachmentError({ name: "a.png", type: "image/png", size: 10 }, undefined, none)).toMatch(/does not take/);
  });
});

describe("parseDataUrl", () => {
  it("a base64 data: URL gives its media type and payload; anything else gives nothing", () => {
    expect(parseDataUrl("data:image/png;base64,iVBO\nRw==")).toEqual({ mime: "image/png", base64: "iVBO\nRw==" });
    expect(parseDataUrl("data:text/plain,hello")).toBeUndefined();
    expect(parseDataUrl("file:///tmp/a.png")).toBeUndefined();
  });
});
