import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "vitest";
import * as route from "../../../app/mcp/route";

type Handler = (req: Request) => Promise<Response>;
export type McpHandlers = { POST: Handler; GET: Handler; DELETE: Handler; OPTIONS: Handler };

export const MCP_URL = "http://easel.test/mcp";

/** A fetch that hands each request to the route's handler in-process, the way Next.js would. */
export function routeFetch(handlers: McpHandlers = route) {
  return async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const req = new Request(url, init);
    const handler = handlers[req.method as keyof McpHandlers];
    if (!handler) return new Response(null, { status: 405 });
    return handler(req);
  };
}

/** The SDK's own client, over its Streamable HTTP transport, against app/mcp/route.ts (or `handlers`). */
export async function connect(token: string | null, handlers: McpHandlers = route): Promise<Client> {
  const client = new Client({ name: "easel-tests", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    fetch: routeFetch(handlers),
    requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : undefined,
  });
  await client.connect(transport);
  return client;
}

export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** A successful tool result's structured content (fails the test with the error text otherwise). */
export function ok(result: CallToolResult): any {
  const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
  expect(result.isError, text).toBeFalsy();
  // The text block carries the same JSON, for clients that only read text.
  expect(JSON.parse(text)).toEqual(result.structuredContent);
  return result.structuredContent;
}

/** Asserts a tool error with `code`: text `code: message`, structuredContent.error.code; returns the error object. */
export function toolError(result: CallToolResult, code: string): Record<string, unknown> & { message: string } {
  expect(result.isError).toBe(true);
  const text = result.content[0]?.type === "text" ? result.content[0].text : "";
  expect(text.startsWith(`${code}: `), text).toBe(true);
  const error = (result.structuredContent as { error: Record<string, unknown> & { message: string } }).error;
  expect(error.code).toBe(code);
  expect(text).toBe(`${code}: ${error.message}`);
  return error;
}

/** A raw POST to the route with a JSON-RPC body, for the HTTP-level rules the SDK client hides. */
export function rawPost(headers: Record<string, string>, body: unknown, handlers: McpHandlers = route) {
  return handlers.POST(
    new Request(MCP_URL, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify(body),
    }),
  );
}

export const initializeMessage = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};
