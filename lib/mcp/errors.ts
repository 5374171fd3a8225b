import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isDatabaseUnavailable } from "../db/unavailable";
import { DomainError } from "../errors";
import { log } from "../log/logger.mjs";

/**
 * Tool results. Failures are tool results with `isError` (the assistant reads and reacts to
 * them), not protocol errors: the text starts with the same code REST puts in
 * `extensions.code`, and structuredContent carries the code with its extensions.
 *
 * Tools declare no outputSchema for this reason: the SDK's client validates any structuredContent
 * against the output schema, error results included, so one schema would have to describe both.
 */
export function toolResult(data: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(data) }], structuredContent: data };
}

export function toolError(err: unknown, tool: string): CallToolResult {
  if (err instanceof DomainError) {
    return {
      isError: true,
      content: [{ type: "text", text: `${err.code}: ${err.message}` }],
      structuredContent: { error: { ...err.extensions, code: err.code, message: err.message } },
    };
  }
  if (isDatabaseUnavailable(err)) {
    const message = "The database could not be reached (restarting, or the connection was lost): retry in a moment, after checking the asset (get_asset, list_asset_versions), since a call cut off mid-way may or may not have changed it";
    return { isError: true, content: [{ type: "text", text: `database_unavailable: ${message}` }], structuredContent: { error: { code: "database_unavailable", message } } };
  }
  // Never the internal message: it may name tables, paths or hosts.
  log().error({ component: "mcp", tool, err }, "mcp tool failed; answered internal");
  const message = "The server failed while running this tool, and whether it changed anything is unknown: check the asset (list_asset_versions, get_asset) before trying again";
  return { isError: true, content: [{ type: "text", text: `internal: ${message}` }], structuredContent: { error: { code: "internal", message } } };
}
