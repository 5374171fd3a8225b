import { z } from "zod";
import { matchOperation } from "../../lib/openapi/match";
import { responseSchemaFor } from "../../lib/openapi/operations";
import { errorEnvelope } from "../../lib/openapi/schemas/common";

/**
 * Checks every /v1 response the integration suite sees (tests/helpers/call-route.ts calls it)
 * against the OpenAPI document's schema for its operation and status, strictly: an unknown key,
 * an undocumented status or an undocumented error code fails the test that made the call.
 */

type Seen = { method: string; path: string; status: number; headers: Headers; body: unknown; text: string };

/** `operationId status` of every response checked in this test file (tests/openapi/responses.test.ts asserts coverage). */
export const checked = new Set<string>();

const RATE_HEADERS = ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"];

const NO_OPERATION = {
  unknownPath: { status: 404, schema: errorEnvelope(["route_not_found"]) },
  otherMethod: { status: 405, schema: errorEnvelope(["method_not_allowed"]) },
};

function fail(what: string, res: Seen, detail: string): never {
  throw new Error(`Response does not match the OpenAPI document: ${res.method} ${res.path} → ${res.status} ${what}\n${detail}\nbody: ${res.text.slice(0, 500)}`);
}

function parseWith(schema: z.ZodType, what: string, res: Seen) {
  const parsed = schema.safeParse(res.body);
  if (!parsed.success) fail(what, res, z.prettifyError(parsed.error));
}

export function checkResponse(res: Seen): void {
  const url = new URL(res.path, "http://easel.test");
  if (url.pathname !== "/v1" && !url.pathname.startsWith("/v1/")) return;
  const method = res.method.toUpperCase();
  if (method === "OPTIONS") return; // CORS preflight: no body, not an operation
  for (const h of RATE_HEADERS) if (!/^\d+$/.test(res.headers.get(h) ?? "")) fail("", res, `header ${h} is missing`);

  const match = matchOperation(method, url.pathname);
  if (!match.op) {
    const expected = match.pathKnown ? NO_OPERATION.otherMethod : NO_OPERATION.unknownPath;
    if (res.status !== expected.status) fail("(no documented operation)", res, `expected ${expected.status}`);
    parseWith(expected.schema, "(no documented operation)", res);
    return;
  }
  const { op } = match;
  const what = `(${op.operationId})`;
  const schema = responseSchemaFor(op, res.status);
  if (schema === undefined) fail(what, res, `status ${res.status} is not documented for ${op.operationId}`);
  if (schema === null) {
    if (res.text !== "") fail(what, res, "documented without a body");
  } else {
    parseWith(schema, what, res);
  }
  checked.add(`${op.operationId} ${res.status}`);
}
