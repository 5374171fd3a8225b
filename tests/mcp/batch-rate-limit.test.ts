import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Workspace } from "../../lib/db/schema";
import { resetEnvCache } from "../../lib/env";
import { MAX_JSON_VALUES } from "../../lib/http/json-values";
import { useTestDeps } from "../helpers/deps";
import { insertAsset, newApiToken, newWorkspace } from "../helpers/factories";
import { rawPost } from "./helpers/client";

/**
 * Contract §13, "Every call counts": each tool call of a JSON-RPC batch counts one request against
 * the token's rate limit. Calls within the limit are served; the rest answer a JSON-RPC error whose
 * data carries `code: "rate_limited"`, in the batch's order.
 */

const LIMIT = 5;
let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let assetToken: string;

beforeAll(async () => {
  deps = await useTestDeps();
  vi.stubEnv("EASEL_RATE_LIMIT_PER_MIN", String(LIMIT));
  resetEnvCache();
  ws = await newWorkspace(deps.db);
  assetToken = (await insertAsset(deps.db, ws, { title: "Counted" })).token;
});

afterAll(() => {
  vi.unstubAllEnvs();
  resetEnvCache();
});

const headers = (token: string) => ({ authorization: `Bearer ${token}`, "mcp-protocol-version": "2025-06-18" });
const getAssetCall = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "get_asset", arguments: { organization: ws.slug, asset_token: assetToken } } });
const batchOf = (n: number, firstId = 1) => Array.from({ length: n }, (_, i) => getAssetCall(firstId + i));

type RpcAnswer = { id: number; result?: { isError?: boolean; structuredContent?: { data?: { token?: string } } }; error?: { code: number; message: string; data?: { code?: string; retry_after?: number } } };

async function postBatch(token: string, body: unknown) {
  const res = await rawPost(headers(token), body);
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return { res, answers: JSON.parse(text) as RpcAnswer[] };
}

const served = (a: RpcAnswer) => a.result?.isError !== true && a.result?.structuredContent?.data?.token === assetToken;
const refused = (a: RpcAnswer) => a.error?.data?.code === "rate_limited";

describe("MCP batches against the rate limit", () => {
  it(`a batch of 8 tool calls with a limit of ${LIMIT}: the first ${LIMIT} are served, the other 3 answer rate_limited, in order`, async () => {
    const token = await newApiToken(deps.db, ws, { scopes: ["read"] });
    const { res, answers } = await postBatch(token, batchOf(8));
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(answers.slice(0, LIMIT).every(served), JSON.stringify(answers.slice(0, LIMIT))).toBe(true);
    const rest = answers.slice(LIMIT);
    expect(rest.every(refused), JSON.stringify(rest)).toBe(true);
    for (const a of rest) {
      expect(a.error!.code).toBe(-32000);
      expect(a.error!.data!.retry_after).toBeGreaterThan(0);
      expect(a.error!.data!.retry_after).toBeLessThanOrEqual(60);
      expect(a.result).toBeUndefined();
    }
    expect(res.headers.get("ratelimit-remaining")).toBe("0");
    // The budget is spent: the next request, alone, is refused at the HTTP level as before.
    const next = await rawPost(headers(token), getAssetCall(9));
    expect(next.status).toBe(429);
  });

  it("a batch that straddles the limit: calls already made count, and only the calls within what is left are served", async () => {
    const token = await newApiToken(deps.db, ws, { scopes: ["read"] });
    for (let i = 0; i < 3; i++) expect((await rawPost(headers(token), getAssetCall(100 + i))).status).toBe(200);
    const { answers } = await postBatch(token, batchOf(4, 200));
    expect(answers.map((a) => a.id)).toEqual([200, 201, 202, 203]);
    expect(answers.map((a) => (served(a) ? "served" : refused(a) ? "refused" : "other"))).toEqual(["served", "served", "refused", "refused"]);
  });

  it("a body holding more than 50,000 values is refused before it is parsed, and runs nothing", async () => {
    const token = await newApiToken(deps.db, ws, { scopes: ["read"] });
    const call = { ...getAssetCall(1), params: { name: "get_asset", arguments: { organization: ws.slug, asset_token: assetToken, padding: Array(MAX_JSON_VALUES).fill(0) } } };
    const res = await rawPost(headers(token), call);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 }, id: null });
  });

  it("messages other than tool calls in a batch are not counted as calls", async () => {
    const token = await newApiToken(deps.db, ws, { scopes: ["read"] });
    const list = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/list" });
    const { res, answers } = await postBatch(token, [list(1), getAssetCall(2), list(3), getAssetCall(4)]);
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3, 4]);
    expect(answers.every((a) => a.result !== undefined)).toBe(true);
    // The POST (the first call) and the second call: two of five.
    expect(res.headers.get("ratelimit-remaining")).toBe(String(LIMIT - 2));
  });
});
