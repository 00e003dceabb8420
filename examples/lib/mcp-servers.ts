/**
 * Stand-ins for the MCP servers the catalog describes: in a real harness, the tool's server (its
 * tool id says which) runs the call and answers with an MCP CallToolResult. Here two tools of the
 * demo catalog answer with canned results, so the examples run offline.
 */
import type { CallToolResult } from "../../src/client/index.ts";

type Handler = (args: Record<string, unknown>) => CallToolResult;

const HANDLERS: Record<string, Handler> = {
  "calendar::calendar.events.create": (args) => ({
    content: [
      {
        type: "text",
        text:
          `Created event evt_1042 "${args.summary}" from ${args.start} to ${args.end} with ` +
          `${(args.attendees as string[] | undefined)?.join(", ") ?? "no attendees"}.`,
      },
    ],
  }),
  "email::sendEmail": (args) => ({
    content: [{ type: "text", text: `Sent message msg_77 "${args.subject}" to ${(args.to as string[]).join(", ")}.` }],
  }),
};

export function runOnMcpServer(toolId: string, args: Record<string, unknown>): CallToolResult {
  const handler = HANDLERS[toolId];
  return handler
    ? handler(args)
    : { content: [{ type: "text", text: `The stand-in server has no handler for ${toolId}.` }], isError: true };
}
