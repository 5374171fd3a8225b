import { mcpRoute } from "@/lib/mcp/http";

// POST /mcp — the assistant tool surface: MCP over Streamable HTTP (stateless), Bearer API token.
// GET and DELETE answer 405 (no SSE stream or session to open or end); OPTIONS is the CORS preflight.
export const { POST, GET, DELETE, OPTIONS } = mcpRoute();
