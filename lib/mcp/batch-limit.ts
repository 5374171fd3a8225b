import type { RateState } from "../http/rate-limit";
import { streamedJsonArray } from "../http/streamed-json";
import { answerTexts } from "./recorded-answers";

/**
 * Contract §13, "Every call counts": each tool call in a JSON-RPC batch counts one request against
 * the token's rate limit, as it would sent alone. The POST itself was counted before the body was
 * read, and that count stands for the batch's first tool call; each further one is counted here,
 * in order. Once the limit is reached the rest are not run: each answers a JSON-RPC error whose
 * `data` carries `code: "rate_limited"` and `retry_after` (seconds until the window resets), and
 * the calls before it are served as usual.
 */

/** Implementation-defined server error (JSON-RPC reserves -32000..-32099 for these). */
export const RATE_LIMITED_RPC_CODE = -32000;

type RpcMessage = { method?: unknown; id?: unknown };

export type RpcErrorResponse = {
  jsonrpc: "2.0";
  id: string | number;
  error: { code: number; message: string; data: { code: "rate_limited"; retry_after: number } };
};

export type CountedBatch = {
  /** The messages to hand to the MCP server: the body unchanged unless some calls were refused. */
  body: unknown;
  /** An answer for each refused call, in the batch's order. */
  refused: RpcErrorResponse[];
  /** The rate state after the last count, for the response's RateLimit-* headers (null: nothing counted here). */
  rate: RateState | null;
};

const isToolCall = (m: unknown): m is RpcMessage & { id: string | number } =>
  m !== null && typeof m === "object" && (m as RpcMessage).method === "tools/call" && (typeof (m as RpcMessage).id === "string" || typeof (m as RpcMessage).id === "number");

function refusal(id: string | number, rate: RateState): RpcErrorResponse {
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: RATE_LIMITED_RPC_CODE,
      message: `Too many requests: this token's limit is ${rate.limit} a minute, and each tool call of a batch counts one; retry after ${rate.resetSeconds} s`,
      data: { code: "rate_limited", retry_after: rate.resetSeconds },
    },
  };
}

/** Counts the tool calls of a batch after its first (`count` counts one request) and sets aside those past the limit. */
export async function countBatchCalls(body: unknown, count: () => Promise<RateState>): Promise<CountedBatch> {
  if (!Array.isArray(body)) return { body, refused: [], rate: null };
  const kept: unknown[] = [];
  const refused: RpcErrorResponse[] = [];
  let rate: RateState | null = null;
  let toolCalls = 0;
  for (const message of body) {
    if (!isToolCall(message) || ++toolCalls === 1) {
      kept.push(message);
      continue;
    }
    // Past the limit once, past it for the rest of the batch: no further round trips to count them.
    if (!rate?.limited) rate = await count();
    if (rate.limited) refused.push(refusal(message.id, rate));
    else kept.push(message);
  }
  return { body: refused.length ? kept : body, refused, rate };
}

/**
 * The MCP server's answer to the calls it ran, each answer's JSON text taken from `texts` (the
 * transport answered stand-ins: recorded-answers.ts), with the refused calls' errors added: one
 * JSON array in the batch's order, written piece by piece. An answer that is not a JSON answer
 * (the transport refused the whole body, say) is returned as it is, since it concerns every message.
 */
export async function withRefusals(response: Response, batch: unknown, refused: RpcErrorResponse[], texts: Map<string | number, string>): Promise<Response> {
  const type = response.headers.get("content-type") ?? "";
  let served: unknown[] = [];
  if (response.status === 200 && type.includes("application/json")) {
    const parsed: unknown = await response.json();
    if (!refused.length) {
      const answers = answerTexts(parsed, texts);
      return Array.isArray(parsed) ? streamedJsonArray(answers, 200, response.headers) : new Response(answers[0], { status: 200, headers: response.headers });
    }
    served = Array.isArray(parsed) ? parsed : [parsed];
  } else if (response.status !== 202 || !refused.length) {
    return response;
  }
  const messages = Array.isArray(batch) ? batch : [batch];
  const order = new Map<unknown, number>();
  messages.forEach((m, i) => {
    if (m !== null && typeof m === "object" && "id" in m) order.set((m as RpcMessage).id, i);
  });
  const position = (m: unknown) => order.get((m as RpcMessage | null)?.id) ?? messages.length;
  const servedTexts = answerTexts(served, texts);
  const all = [...served.map((m, i) => ({ m, text: servedTexts[i] })), ...refused.map((m) => ({ m, text: JSON.stringify(m) }))];
  all.sort((a, b) => position(a.m) - position(b.m));
  return streamedJsonArray(all.map((a) => a.text), 200, response.headers);
}
