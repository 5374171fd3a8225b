import { beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "../../lib/db/schema";
import { useTestDeps } from "../helpers/deps";
import { insertAsset, newApiToken, newWorkspace } from "../helpers/factories";
import { rawPost } from "./helpers/client";

/**
 * The answer to a JSON-RPC POST is written from each call's answer text (lib/mcp/recorded-answers.ts):
 * it must be what the SDK's transport would write, JSON.stringify of the answer or of the batch's
 * answers in the batch's order, with no trace of the stand-ins the transport was handed.
 */

let ws: Workspace;
let rw: string;
let assetToken: string;

beforeAll(async () => {
  const deps = await useTestDeps();
  ws = await newWorkspace(deps.db);
  rw = await newApiToken(deps.db, ws);
  assetToken = (await insertAsset(deps.db, ws, { title: "Answered “twice”", text: "x".repeat(200_000), tags: ["a"] })).token;
});

const headers = () => ({ authorization: `Bearer ${rw}`, "mcp-protocol-version": "2025-06-18" });
const getAsset = (id: number | string, token = assetToken) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "get_asset", arguments: { organization: ws.slug, asset_token: token } } });

type RpcAnswer = { jsonrpc: string; id: number | string; result?: { isError?: boolean; content: { text: string }[]; structuredContent?: { data?: { token?: string; text?: string } } }; error?: { code: number } };

async function post(body: unknown) {
  const res = await rawPost(headers(), body);
  const text = await res.text();
  expect(res.status, text.slice(0, 300)).toBe(200);
  expect(res.headers.get("content-type")).toContain("application/json");
  const parsed = JSON.parse(text) as RpcAnswer | RpcAnswer[];
  // The bytes JSON.stringify writes for what was answered: nothing added, dropped or reordered.
  expect(text).toBe(JSON.stringify(parsed));
  return parsed;
}

describe("MCP answers written from the calls' own texts", () => {
  it("a batch: every call's whole answer, in the batch's order, errors and tool errors included", async () => {
    const answers = (await post([getAsset(3), { jsonrpc: "2.0", method: "notifications/initialized" }, getAsset("b", "nope"), getAsset(1), { jsonrpc: "2.0", id: 9, method: "no/such" }])) as RpcAnswer[];
    expect(answers.map((a) => a.id)).toEqual([3, "b", 1, 9]);
    for (const a of [answers[0], answers[2]]) {
      expect(a.jsonrpc).toBe("2.0");
      expect(a.result?.structuredContent?.data?.token).toBe(assetToken);
      expect(a.result?.structuredContent?.data?.text).toHaveLength(200_000);
      expect(JSON.parse(a.result!.content[0].text)).toEqual(a.result?.structuredContent);
    }
    expect(answers[1].result?.isError).toBe(true);
    expect(answers[3].error?.code).toBe(-32601);
  });

  it("one call, alone or alone in a batch: one answer object, as the SDK writes it", async () => {
    for (const body of [getAsset(7), [getAsset(7)]]) {
      const answer = (await post(body)) as RpcAnswer;
      expect(Array.isArray(answer)).toBe(false);
      expect(answer.id).toBe(7);
      expect(answer.result?.structuredContent?.data?.token).toBe(assetToken);
    }
  });

  it("notifications only: 202 with no body", async () => {
    const res = await rawPost(headers(), [{ jsonrpc: "2.0", method: "notifications/initialized" }]);
    expect(res.status).toBe(202);
    expect(await res.text()).toBe("");
  });
});
