/**
 * Short-query coverage (tool-index.ts): a short query's score is scaled by the share of its words a tool explains.
 * A word the catalog lacks but reaches through a synonym ("altitude", by "elevation") is one of those words.
 */
import { describe, expect, it } from "vitest";
import { ToolIndex } from "../../src/search/tool-index.ts";

const tool = (server: string, name: string, description: string) => ({
  id: `${server}::${name}`,
  server,
  name,
  description,
  inputSchema: { type: "object", properties: {} },
});
const index = ToolIndex.fromTools([
  tool("maps", "get_elevation", "Get the elevation of a point on the map"),
  tool("maps", "geocode", "Find the coordinates of an address"),
  tool("docker", "mount_volume", "Mount a volume into a container"),
  tool("docker", "list_containers", "List running containers"),
  tool("fs", "read_file", "Read a file from disk"),
]);
const scores = (query: string, tuning = {}) =>
  new Map(index.answer(query, { limit: 10, threshold: 0, tuning }).hits.map((h) => [h.id, h.score]));

describe("short-query coverage", () => {
  // "altitude" is in no tool; the thesaurus takes it to "elevation". "mount" is in one tool, as a verb.
  const query = "altitude of Mount Rainier";

  it("counts a word reached only through its synonyms, so the tool that has them is not scored 0", () => {
    expect(scores(query, { synonymKnown: 0 }).get("maps::get_elevation") ?? 0).toBe(0);
    expect(scores(query).get("maps::get_elevation")).toBeGreaterThan(0);
  });

  it("discounts a tool that holds the query's other words but not that one", () => {
    expect(scores(query).get("docker::mount_volume")).toBeLessThan(
      scores(query, { synonymKnown: 0 }).get("docker::mount_volume")!,
    );
  });

  it("changes nothing for a query of one word, or whose words the catalog holds", () => {
    for (const q of ["altitude", "mount a volume", "list containers"])
      expect(scores(q)).toEqual(scores(q, { synonymKnown: 0 }));
  });
});
