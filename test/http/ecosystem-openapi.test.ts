/** /openapi.json documents the MCP endpoint, the vendor export and the vendor search formats, with examples. */
import { describe, expect, it } from "vitest";
import { call } from "../helpers.ts";

describe("OpenAPI document: connecting agents", () => {
  it("documents the MCP routes, the catalog export and the vendor search answers", async () => {
    const doc = (await call("GET", "/openapi.json")).body;
    const mcp = doc.paths["/v1/tenants/{tenant}/mcp"];
    expect(Object.keys(mcp).sort()).toEqual(["delete", "get", "post"]);
    expect(mcp.post.requestBody.content["application/json"].schema.$ref).toBe("#/components/schemas/JsonRpcMessage");
    expect(mcp.post.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(["mcp-session-id", "x-tool-search-session"]),
    );
    expect(mcp.post.responses["404"].content["application/json"].schema.$ref).toBe("#/components/schemas/JsonRpcError");
    expect(mcp.post.responses["401"].content["application/json"].schema.$ref).toBe("#/components/schemas/Error");
    expect(mcp.get.responses["405"]).toBeDefined();
    for (const schema of ["JsonRpcMessage", "JsonRpcResponse", "JsonRpcError", "CatalogExport"]) {
      expect(doc.components.schemas[schema]?.example, `${schema} has an example`).toBeDefined();
    }

    const exported = doc.paths["/v1/tenants/{tenant}/catalog/export"].get;
    const format = exported.parameters.find((p: { name: string }) => p.name === "format");
    expect(format.required).toBe(true);
    expect(format.schema.enum).toEqual(["anthropic", "openai-responses"]);
    expect(exported.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(["cursor", "limit", "server", "tool_search"]),
    );

    const request = doc.components.schemas.SearchRequest;
    expect(request.properties.format.enum).toEqual(
      expect.arrayContaining(["anthropic-tool-reference", "openai-tool-search-output"]),
    );
    expect(request.properties.call_id).toBeDefined();
    expect(request.examples.map((e: { format?: string }) => e.format)).toEqual(
      expect.arrayContaining(["anthropic-tool-reference", "openai-tool-search-output"]),
    );
    const response = doc.components.schemas.SearchResponse;
    expect(Object.keys(response.properties)).toEqual(expect.arrayContaining(["tool_result", "input_items"]));
    expect(response.examples[1].tool_result.content[0]).toEqual({
      type: "tool_reference",
      tool_name: "filesystem__read_file",
    });
    expect(doc.components.schemas.Session.properties.turn_idle_seconds).toBeDefined();
    expect(doc.components.schemas.TenantSettings.properties.mcp_turn_idle_seconds).toBeDefined();
  });
});
