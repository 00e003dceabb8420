import { describe, expect, it } from "vitest";
import { call } from "../helpers.ts";

describe("OpenAPI document", () => {
  it("documents every session, plan, deferred-list and tool-result route", async () => {
    const doc = (await call("GET", "/openapi.json")).body;
    const expected: [string, string][] = [
      ["/v1/tenants/{tenant}/sessions", "post"],
      ["/v1/tenants/{tenant}/sessions/{session_id}", "get"],
      ["/v1/tenants/{tenant}/sessions/{session_id}", "delete"],
      ["/v1/tenants/{tenant}/sessions/{session_id}/turns", "post"],
      ["/v1/tenants/{tenant}/sessions/{session_id}/tools", "get"],
      ["/v1/tenants/{tenant}/sessions/{session_id}/tools", "put"],
      ["/v1/tenants/{tenant}/sessions/{session_id}/resolve", "post"],
      ["/v1/tenants/{tenant}/catalog/deferred", "get"],
      ["/v1/tenants/{tenant}/plan", "post"],
      ["/v1/tenants/{tenant}/tool-results", "post"],
    ];
    for (const [path, method] of expected) expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    const search = doc.paths["/v1/tenants/{tenant}/search"].post;
    expect(search.responses["429"]).toBeDefined();
    expect(doc.components.schemas.SearchRequest.properties.session_id).toBeDefined();
    expect(doc.paths["/v1/tenants/{tenant}/sessions/{session_id}/resolve"].post.responses["409"].description).toContain(
      "tool-not-active",
    );
    for (const schema of [
      "Session",
      "SessionToolList",
      "Plan",
      "DeferredList",
      "ToolResultObject",
      "Budget",
      "TokenFigures",
    ]) {
      expect(doc.components.schemas[schema], schema).toBeDefined();
    }
  });
});
