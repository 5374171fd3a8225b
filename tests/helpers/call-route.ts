import { checkResponse } from "../openapi/recorder";

type Handler = (req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;

export type Call = {
  method?: string;
  path: string;
  token?: string | null;
  json?: unknown;
  body?: string;
  headers?: Record<string, string>;
  params?: Record<string, string | string[]>;
};

export type Answer = { status: number; headers: Headers; body: any; text: string };

/** Invokes a route handler in-process the way Next.js does: a Request and a params Promise. */
export async function call(handler: Handler, c: Call): Promise<Answer> {
  const headers: Record<string, string> = { ...(c.headers ?? {}) };
  if (c.token) headers.authorization = `Bearer ${c.token}`;
  let body = c.body;
  if (c.json !== undefined) {
    body = JSON.stringify(c.json);
    headers["content-type"] ??= "application/json";
  }
  const req = new Request(`http://easel.test${c.path}`, { method: c.method ?? "GET", headers, body });
  const res = await handler(req, { params: Promise.resolve(c.params ?? {}) });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  const answer = { status: res.status, headers: res.headers, body: parsed, text };
  // Every /v1 answer of the integration suite must match the OpenAPI document (tests/openapi/recorder.ts).
  checkResponse({ method: c.method ?? "GET", path: c.path, ...answer });
  return answer;
}
