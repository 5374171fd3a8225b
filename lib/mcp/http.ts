import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { authenticate, bearerToken } from "../auth/authenticate";
import { principalKey, type Principal } from "../auth/principal";
import { getDeps, type Deps } from "../deps";
import { env } from "../env";
import { DomainError } from "../errors";
import { toErrorResponse } from "../http/envelope";
import { MAX_JSON_DEPTH, jsonNestsDeeperThan } from "../http/json-depth";
import { MAX_JSON_VALUES, jsonHoldsMoreValuesThan } from "../http/json-values";
import { readBodyText } from "../http/parse";
import { clientAddress, countRequest, rateHeaders, type RateState } from "../http/rate-limit";
import { findUnstorable } from "../http/unstorable-text";
import { countBatchCalls, withRefusals } from "./batch-limit";
import type { DownloadOptions } from "./download";
import { toolError } from "./errors";
import { recordAnswers } from "./recorded-answers";
import { createMcpServer, type McpContext } from "./server";

export type McpRouteOptions = {
  /** How create_asset_version downloads (extra trusted CAs, deadline, resolver). Default: Node's trust store, 30 s. */
  download?: DownloadOptions;
};

const CORS: Record<string, string> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": "WWW-Authenticate, Mcp-Session-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, Allow",
};

/** RFC 6750: a bare challenge when no credentials came, `invalid_token` when they were wrong. */
function challenge(req: Request, err: DomainError): string {
  if (!req.headers.has("authorization")) return 'Bearer realm="easel"';
  return `Bearer realm="easel", error="invalid_token", error_description="${err.message.replace(/["\\]/g, "")}"`;
}

const limitFor = (p: Principal | null) => (p?.kind === "board" ? env().EASEL_BOARD_TOKEN_RATE_LIMIT_PER_MIN : env().EASEL_RATE_LIMIT_PER_MIN);

/** The SDK's own limit on a POST body, kept now that Easel reads the body before the SDK does. */
const MCP_MAX_BODY_BYTES = 4 * 1024 * 1024;

const jsonRpcError = (status: number, code: number, message: string) =>
  Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });

/**
 * The POST body, parsed here rather than by the SDK so that its nesting is bounded first
 * (contract §12: deeper than 64 levels is refused before any parse). Refusals keep the shape the
 * SDK gives them: JSON-RPC errors, 413 above the size limit, 400 -32700 for a body too deep or not JSON.
 */
async function readJsonRpcBody(req: Request): Promise<{ parsed: unknown } | Response> {
  let text: string;
  try {
    text = await readBodyText(req, MCP_MAX_BODY_BYTES);
  } catch (err) {
    if (err instanceof DomainError && err.code === "payload_too_large") return jsonRpcError(413, -32000, err.message);
    throw err;
  }
  if (jsonNestsDeeperThan(text)) return jsonRpcError(400, -32700, `Parse error: the body nests deeper than ${MAX_JSON_DEPTH} levels`);
  if (jsonHoldsMoreValuesThan(text)) return jsonRpcError(400, -32600, `Invalid Request: the body holds more than ${MAX_JSON_VALUES} values`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return jsonRpcError(400, -32700, "Parse error: Invalid JSON");
  }
  return refuseUnstorable(parsed) ?? { parsed };
}

type JsonRpcRequest = { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: { arguments?: unknown } };

/**
 * A string holding NUL or a lone surrogate anywhere in the body (contract §10, "Input"), refused
 * before any tool runs. In a tool's arguments it answers as the tool's own validation does: a
 * tool result with `validation_failed` and the argument's name in `field`. Anywhere else it is a
 * JSON-RPC "invalid params" error naming the path.
 */
function refuseUnstorable(parsed: unknown): Response | null {
  const bad = findUnstorable(parsed);
  if (!bad) return null;
  const request = (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? parsed : {}) as JsonRpcRequest;
  const id = typeof request.id === "string" || typeof request.id === "number" ? request.id : null;
  const inArguments = bad.field.startsWith("params.arguments.");
  if (request.method === "tools/call" && id !== null && inArguments) {
    const field = bad.field.slice("params.arguments.".length);
    const result = toolError(new DomainError("validation_failed", `${field}: ${bad.reason}`, { field }), "");
    return Response.json({ jsonrpc: "2.0", id, result });
  }
  return Response.json({ jsonrpc: "2.0", error: { code: -32602, message: `Invalid params: ${bad.field || "body"}: ${bad.reason}` }, id }, { status: 400 });
}

/**
 * Stateless Streamable HTTP: a fresh server and transport for every POST (the SDK refuses to reuse
 * a stateless transport), answering with one JSON body rather than an SSE stream, since no tool
 * streams progress. Nothing is kept between requests, so any app node can answer any request.
 */
async function serve(req: Request, ctx: McpContext, countCall: () => Promise<RateState>): Promise<{ response: Response; rate: RateState | null }> {
  const body = await readJsonRpcBody(req);
  if (body instanceof Response) return { response: body, rate: null };
  // Each tool call of a batch counts against the limit (lib/mcp/batch-limit.ts).
  const batch = await countBatchCalls(body.parsed, countCall);
  const server = createMcpServer(ctx);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  const texts = recordAnswers(transport);
  await server.connect(transport);
  try {
    const served = await transport.handleRequest(req, { parsedBody: batch.body });
    return { response: await withRefusals(served, body.parsed, batch.refused, texts), rate: batch.rate };
  } finally {
    await server.close();
  }
}

/**
 * The handlers of app/mcp/route.ts. POST: authenticate the Bearer API token (401 with
 * WWW-Authenticate), count the request against the token's rate limit, refuse anything but an API
 * token (403), then MCP, where each further tool call of a batch counts one more request. GET (the
 * server-to-client SSE stream) and DELETE (session end) mean nothing without sessions: 405, which
 * the Streamable HTTP transport's clients expect.
 */
export function mcpRoute(options: McpRouteOptions = {}) {
  async function POST(req: Request): Promise<Response> {
    let rate: RateState | null = null;
    let response: Response;
    let db: Deps["db"] | null = null; // for the client-address count after a failure
    try {
      const deps = await getDeps();
      db = deps.db;
      // Only a Bearer token: authenticate() would accept the web UI's session cookie in its place,
      // which an assistant never holds and a cross-site page must not be able to ride.
      if (bearerToken(req) === null) throw new DomainError("unauthenticated", "Missing Authorization header: send an API token as 'Bearer <token>'");
      const principal = await authenticate(req, deps);
      const countCall = () => countRequest(deps.db, principalKey(principal), limitFor(principal));
      rate = await countCall();
      if (rate.limited) throw new DomainError("rate_limited", "Too many requests", { retry_after: rate.resetSeconds });
      if (principal.kind === "board") throw new DomainError("board_scoped_token", "A board access token cannot use the assistant tools: use an API token");
      if (principal.kind !== "api") throw new DomainError("api_token_required", "The assistant tools take an API token");
      const served = await serve(req, { deps, principal, req, download: options.download }, countCall);
      response = served.response;
      rate = served.rate ?? rate;
    } catch (err) {
      response = toErrorResponse(err, req);
      if (err instanceof DomainError && err.code === "unauthenticated") response.headers.set("WWW-Authenticate", challenge(req, err));
    }
    rate ??= await countRequest(db, `ip:${clientAddress(req)}`, limitFor(null));
    for (const [k, v] of Object.entries({ ...rateHeaders(rate), ...CORS })) response.headers.set(k, v);
    return response;
  }

  async function notAllowed(req: Request): Promise<Response> {
    const response = toErrorResponse(new DomainError("method_not_allowed", `${req.method} is not allowed here: this MCP endpoint is stateless, POST only`, { allow: ["POST"] }));
    for (const [k, v] of Object.entries(CORS)) response.headers.set(k, v);
    return response;
  }

  async function OPTIONS(): Promise<Response> {
    return new Response(null, {
      status: 204,
      headers: {
        ...CORS,
        "Access-Control-Allow-Methods": "POST",
        "Access-Control-Allow-Headers": "Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID",
        "Access-Control-Max-Age": "600",
        Allow: "POST, OPTIONS",
      },
    });
  }

  return { POST, GET: notAllowed, DELETE: notAllowed, OPTIONS };
}
