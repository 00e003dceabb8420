/** The search core on its own: upserts, removals, re-insertion and snapshots give the same answers. */
import { describe, expect, it } from "vitest";
import { SnapshotError } from "../../src/search/snapshot.ts";
import { ToolIndex } from "../../src/search/tool-index.ts";
import { tool } from "./fixtures.ts";

const tools = [
  tool("fs", "read_file", "Read a file from disk"),
  tool("fs", "write_file", "Write a file to disk"),
  tool("mail", "send_email", "Send an email message"),
  tool("mail", "search_inbox", "Search the inbox for messages"),
];
const answer = (index: ToolIndex, query: string) =>
  index.search(query, { limit: 5, threshold: 0 }).map((h) => [h.id, h.score]);

describe("ToolIndex", () => {
  it("removes tools completely and re-inserts them with their new text", () => {
    const index = ToolIndex.fromTools(tools);
    index.remove(["fs::read_file"]);
    expect(index.has("fs::read_file")).toBe(false);
    expect(answer(index, "read").map(([id]) => id)).not.toContain("fs::read_file");
    expect(index.search("read_file", { limit: 5, threshold: 99 })).toEqual([]);
    index.upsert([tool("fs", "read_file", "Open a document")]);
    expect(answer(index, "read").map(([id]) => id)).toContain("fs::read_file"); // by name
    expect(answer(index, "disk").map(([id]) => id)).toEqual(["fs::write_file"]); // old text gone
    expect(index.size).toBe(4);
  });

  it("answers identically after a snapshot round trip", () => {
    const index = ToolIndex.fromTools(tools);
    index.upsert([tool("mail", "send_email", "Send an email with attachments")]);
    const restored = ToolIndex.restore(index.snapshot());
    for (const q of ["read", "email attachments", "search messages", "send_email", "nothing here"])
      expect(answer(restored, q)).toEqual(answer(index, q));
    expect(restored.size).toBe(index.size);
  });

  it("refuses a snapshot that is damaged or not a snapshot", () => {
    const bytes = ToolIndex.fromTools(tools).snapshot();
    expect(() => ToolIndex.restore(bytes.subarray(0, bytes.length - 8))).toThrow(SnapshotError);
    expect(() => ToolIndex.restore(new TextEncoder().encode("hello world, not an index"))).toThrow(SnapshotError);
  });
});
