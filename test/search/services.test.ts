/** Services a query names that the catalog lacks: judged per tool, so a name's words spread over tools are not it. */
import { describe, expect, it } from "vitest";
import { ToolIndex } from "../../src/search/tool-index.ts";
import { tool } from "./fixtures.ts";

const crypto = tool("crypto", "generate_key", "Generate an EC (elliptic curve) key pair");
const retry = tool("http", "fetch_url", "Fetch a URL, retrying up to 2 times");
const ec2 = tool("aws", "start_instances", "Start stopped Amazon EC2 instances");
const absent = (tools: ReturnType<typeof tool>[], query: string) =>
  ToolIndex.fromTools(tools).answer(query, { limit: 5, threshold: 0 }).absent;

describe("absent services", () => {
  it("counts a service of several terms as present only when one tool holds them all", () => {
    // "ec2" analyses to ec + 2: one tool says EC, another 2, none EC2.
    expect(absent([crypto, retry], "start an ec2 instance")).toEqual(["ec2"]);
    expect(absent([crypto, retry, ec2], "start an ec2 instance")).toEqual([]);
  });

  it("counts a one-word service as present when any tool mentions it", () => {
    const slack = tool("chat", "post_message", "Post a message to a Slack channel");
    expect(absent([slack, retry], "post to slack")).toEqual([]);
    expect(absent([retry], "post to slack")).toEqual(["slack"]);
  });

  it("stays right after a tool leaves the catalog", () => {
    const index = ToolIndex.fromTools([crypto, retry, ec2]);
    index.remove([ec2.id]);
    expect(index.answer("start an ec2 instance", { limit: 5, threshold: 0 }).absent).toEqual(["ec2"]);
  });
});
