import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

type Id = string | number;

const answerId = (m: JSONRPCMessage): Id | null => {
  const { id } = m as { id?: unknown };
  return (typeof id === "string" || typeof id === "number") && ("result" in m || "error" in m) ? id : null;
};

/**
 * The JSON text of each answer the MCP server sends through `transport`, made when the answer is
 * sent, while the transport is handed a small stand-in with the same id.
 *
 * Why: in JSON-response mode the SDK's transport holds a batch's answers and serialises them all
 * at once, with one JSON.stringify; 100 get_asset answers of the largest asset are 37 MB of JSON,
 * and that one call held the event loop for over 100 ms. Each answer is serialised here as its
 * call finishes (each call runs in a turn of its own: server.ts), and http.ts writes the batch's
 * answer from these texts piece by piece: the same bytes, as JSON.stringify of an array is its
 * elements' JSON texts joined by commas.
 */
export function recordAnswers(transport: Transport): Map<Id, string> {
  const texts = new Map<Id, string>();
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const id = answerId(message);
    if (id === null) return send(message, options);
    texts.set(id, JSON.stringify(message));
    return send({ jsonrpc: "2.0", id, result: {} }, options);
  };
  return texts;
}

/**
 * The answers' JSON texts in the order of the transport's answer (the batch's order), the
 * stand-ins replaced by the recorded texts; an answer the transport made itself is serialised as it is.
 */
export function answerTexts(answer: unknown, texts: Map<Id, string>): string[] {
  const answers = Array.isArray(answer) ? answer : [answer];
  return answers.map((a) => {
    const id = (a as { id?: unknown } | null)?.id;
    return (typeof id === "string" || typeof id === "number" ? texts.get(id) : undefined) ?? JSON.stringify(a);
  });
}
