import { setImmediate as nextTurn } from "node:timers/promises";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import pLimit from "p-limit";
import { z } from "zod";
import pkg from "../../package.json";
import { hasScope } from "../auth/principal";
import { DomainError } from "../errors";
import { validationError } from "../http/parse";
import { linkerFor } from "../media/linker-for";
import type { MediaLinker } from "../media/links";
import { workspaceStorage } from "../storage/workspace-storage";
import { workspaceForPrincipal } from "../workspaces/get-workspace";
import { toolError, toolResult } from "./errors";
import { TOOLS } from "./tools";
import type { McpContext, ToolContext, ToolDef } from "./tools/tool";

export type { McpContext } from "./tools/tool";

const INSTRUCTIONS = [
  "Easel hosts assets (files) in workspaces; every tool takes `organization` (the workspace slug) and `asset_token`.",
  "An asset's live content is its head; replacing or reverting it stores the previous head as an immutable version.",
  "`head_version_number` is the number the next write takes; the newest stored version is head_version_number − 1.",
  "Look before you write: list_asset_versions (or get_asset) before revert_asset, edit_asset_version_comment or create_asset_version, and again after a timeout instead of retrying blindly.",
  "Errors come back as tool results whose text starts with a code (e.g. `revert_window_exceeded: …`); branch on the code.",
].join(" ");

// The tools' JSON schemas never change: built once per process, not per request.
const described = new Map<string, Tool>();
function describeTool(tool: ToolDef): Tool {
  let d = described.get(tool.name);
  if (!d) {
    const inputSchema = z.toJSONSchema(tool.input, { target: "draft-7", io: "input" }) as Tool["inputSchema"];
    d = { name: tool.name, title: tool.title, description: tool.description, inputSchema, annotations: { title: tool.title, ...tool.annotations } };
    described.set(tool.name, d);
  }
  return d;
}

function toolContext(ctx: McpContext): ToolContext {
  let linker: Promise<MediaLinker> | undefined;
  return {
    ...ctx,
    workspace: (slug) => workspaceForPrincipal(ctx.deps.db, slug, ctx.principal),
    link: () => (linker ??= linkerFor(ctx.req, ctx.deps)),
    storage: (workspace) => workspaceStorage(ctx.deps, workspace, ctx.req),
  };
}

async function callTool(tool: ToolDef, ctx: ToolContext, args: unknown): Promise<CallToolResult> {
  try {
    // Write tools are not listed for a read-only token, but a client may call one by name anyway.
    if (!hasScope(ctx.principal, tool.scope)) {
      throw new DomainError("insufficient_scope", `This token lacks the ${tool.scope} scope`, { required_scope: tool.scope });
    }
    const parsed = tool.input.safeParse(args ?? {});
    if (!parsed.success) throw validationError(parsed.error, tool.fieldCodes);
    return toolResult(await tool.run(ctx, parsed.data));
  } catch (err) {
    return toolError(err, tool.name);
  }
}

/**
 * The MCP server of one request's caller. Built on the SDK's low-level Server rather than
 * McpServer because the tool surface must answer like the REST API: a tool outside the token's
 * scope is hidden from tools/list yet answers `insufficient_scope` when called, and bad arguments
 * answer Easel's codes (`invalid_version_number`, `validation_failed` naming the field), where
 * McpServer would answer "tool not found" and its own validation text.
 */
export function createMcpServer(ctx: McpContext): Server {
  const server = new Server({ name: "easel", title: "Easel", version: pkg.version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  const offered = TOOLS.filter((t) => hasScope(ctx.principal, t.scope)).map(describeTool);
  const tools = toolContext(ctx);
  // The SDK starts every call of a JSON-RPC batch at once. On the embedded database each query
  // runs on this thread and the next one starts in a microtask, so a batch of 100 calls held
  // every other tenant's request for half a second. One call of a request at a time, each after
  // a turn of the event loop, lets other requests in between the calls.
  const oneAtATime = pLimit(1);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: offered }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = TOOLS.find((t) => t.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return oneAtATime(async () => {
      await nextTurn();
      return callTool(tool, tools, request.params.arguments);
    });
  });
  return server;
}
