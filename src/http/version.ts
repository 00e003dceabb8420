/** The API's version: in /openapi.json and in the MCP server's `serverInfo`. */
export const API_VERSION = "1.0.0";
