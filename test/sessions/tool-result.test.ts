import { describe, expect, it } from "vitest";
import { toToolResult } from "../../src/sessions/tool-result.ts";
import { call, tenantWithKey } from "../helpers.ts";

describe("MCP CallToolResult -> tool result object", () => {
  it("joins text blocks into textResultForLlm", () => {
    const r = toToolResult({
      content: [
        { type: "text", text: "line one" },
        { type: "text", text: "line two" },
      ],
    });
    expect(r).toEqual({
      textResultForLlm: "line one\nline two",
      resultType: "success",
      sessionLog: "success: 2 text; 17 characters of text, 0 binary results",
      binaryResultsForLlm: [],
    });
  });

  it("puts image blocks in binaryResultsForLlm", () => {
    const r = toToolResult({
      content: [
        { type: "text", text: "File contents here" },
        { type: "image", data: "aGVsbG8=", mimeType: "image/png" },
      ],
    });
    expect(r.textResultForLlm).toBe("File contents here");
    expect(r.binaryResultsForLlm).toEqual([{ data: "aGVsbG8=", mimeType: "image/png", type: "image" }]);
    expect(r.sessionLog).toBe("success: 1 text, 1 image; 18 characters of text, 1 binary result");
  });

  it("reads embedded resources: text into the text, blobs into binary results named by their uri", () => {
    const r = toToolResult({
      content: [
        { type: "resource", resource: { uri: "file:///notes.md", mimeType: "text/markdown", text: "# Notes" } },
        { type: "resource", resource: { uri: "file:///logo.bin", blob: "AAEC" } },
      ],
    });
    expect(r.textResultForLlm).toBe("# Notes");
    expect(r.binaryResultsForLlm).toEqual([
      { data: "AAEC", mimeType: "application/octet-stream", type: "resource", description: "file:///logo.bin" },
    ]);
  });

  it("keeps audio as a binary resource and resource links as a line of text", () => {
    const r = toToolResult({
      content: [
        { type: "audio", data: "UklGR", mimeType: "audio/wav" },
        {
          type: "resource_link",
          uri: "https://example.com/report.pdf",
          name: "report.pdf",
          description: "Quarterly report",
        },
      ],
    });
    expect(r.binaryResultsForLlm).toEqual([
      { data: "UklGR", mimeType: "audio/wav", type: "resource", description: "audio" },
    ]);
    expect(r.textResultForLlm).toBe("Resource link: https://example.com/report.pdf (report.pdf) - Quarterly report");
  });

  it("maps isError to resultType failure", () => {
    const r = toToolResult({ content: [{ type: "text", text: "no such file" }], isError: true });
    expect(r.resultType).toBe("failure");
    expect(r.textResultForLlm).toBe("no such file");
    expect(r.sessionLog.startsWith("failure: 1 text")).toBe(true);
  });

  it("gives structuredContent as JSON when there is no text, and skips unknown block types", () => {
    const r = toToolResult({
      content: [{ type: "hologram", beams: 3 } as never],
      structuredContent: { temperature: 21 },
    });
    expect(r.textResultForLlm).toBe('{"temperature":21}');
    expect(r.sessionLog).toBe("success: 1 hologram; 18 characters of text, 0 binary results");
    expect(toToolResult({ content: [] }).sessionLog).toBe(
      "success: no content; 0 characters of text, 0 binary results",
    );
  });

  it("refuses a malformed block of a known type", () => {
    expect(() => toToolResult({ content: [{ type: "image", data: "x" } as never] })).toThrow(/image block/);
  });

  it("is served at POST /v1/tenants/{tenant}/tool-results", async () => {
    const { tenant, key } = await tenantWithKey();
    const ok = await call("POST", `/v1/tenants/${tenant}/tool-results`, {
      token: key,
      body: {
        content: [
          { type: "text", text: "hi" },
          { type: "image", data: "aGk=", mimeType: "image/jpeg" },
        ],
        isError: false,
      },
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({
      textResultForLlm: "hi",
      resultType: "success",
      binaryResultsForLlm: [{ type: "image", mimeType: "image/jpeg" }],
    });
    const bad = await call("POST", `/v1/tenants/${tenant}/tool-results`, {
      token: key,
      body: { content: [{ type: "text" }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("text block");
    const noKey = await call("POST", `/v1/tenants/${tenant}/tool-results`, { body: { content: [] } });
    expect(noKey.status).toBe(401);
  });
});
