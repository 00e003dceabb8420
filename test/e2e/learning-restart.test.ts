/**
 * What tools learned from use across a full restart of the local runtime: the learned terms, and the searches they
 * change, are the same after a new process starts; and a crash (SIGKILL) right after a resolve keeps its credit.
 */
import { describe, expect, it } from "vitest";
import { api, localWorkers } from "./support.ts";

const t = "/v1/tenants/learning";

const tools = [
  ["merge_pull_request", "Merge a pull request into its base branch"],
  ["create_issue", "Create a new issue in a repository"],
  ["list_issues", "List the issues of a repository"],
  ["read_file", "Read the contents of a file"],
].map(([name, description]) => ({ server: "dev", name, description, inputSchema: { type: "object", properties: {} } }));

describe("learning across a restart of the local runtime", () => {
  const start = localWorkers();

  it("keeps what tools learned and ranks the same, after a stop and after a crash", async () => {
    const first = await start();
    const op = first.adminToken;
    expect((await api(first, op, "POST", "/v1/tenants", { id: "learning" })).status).toBe(201);
    const key = (await api(first, op, "POST", `${t}/keys`, { scopes: ["search", "write", "admin"] })).json
      .key as string;
    expect((await api(first, key, "POST", `${t}/tools`, { tools })).status).toBe(200);

    const teach = async (w: typeof first, session: string) => {
      expect((await api(w, key, "POST", `${t}/sessions`, { session_id: session })).status).toBe(201);
      expect((await api(w, key, "POST", `${t}/search`, { query: "open a PR", session_id: session })).status).toBe(200);
      await api(w, key, "POST", `${t}/search`, { tool_id: "dev::merge_pull_request", session_id: session });
      const resolved = await api(w, key, "POST", `${t}/sessions/${session}/resolve`, {
        name: "dev__merge_pull_request",
      });
      expect(resolved.status).toBe(200);
    };
    for (let i = 0; i < 3; i++) await teach(first, `s${i}`);
    const learned = await api(first, key, "GET", `${t}/learned?tool_id=dev::merge_pull_request`);
    expect(learned.json).toMatchObject({ credits: 3, terms: [{ weight: 3 }, { weight: 3 }] });
    const query = { query: "open a PR", threshold: 0, explain: true };
    const ranked = (await api(first, key, "POST", `${t}/search`, query)).json.results;
    expect(ranked[0].tool_id).toBe("dev::merge_pull_request");
    await first.stop();

    const second = await start({ persistTo: first.persistTo, adminToken: op });
    expect((await api(second, key, "GET", `${t}/learned?tool_id=dev::merge_pull_request`)).json).toEqual(learned.json);
    expect((await api(second, key, "POST", `${t}/search`, query)).json.results).toEqual(ranked);

    // A resolve acknowledged just before the process is killed keeps its credit.
    await teach(second, "s3");
    await second.kill();
    const third = await start({ persistTo: first.persistTo, adminToken: op });
    const after = await api(third, key, "GET", `${t}/learned?tool_id=dev::merge_pull_request`);
    expect(after.json).toMatchObject({ credits: 4, terms: [{ weight: 4 }, { weight: 4 }] });
  });
});
