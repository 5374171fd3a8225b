import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as mcpRoute from "../../app/mcp/route";
import type { Workspace } from "../../lib/db/schema";
import { resetEnvCache } from "../../lib/env";
import { insertAsset, newApiToken, newWorkspace } from "../helpers/factories";
import { expectOtherTenantUnharmed, measureOtherTenant, newOtherTenant, startEaselServer, type OtherTenant } from "../helpers/other-tenant";
import { useVideoJobs } from "../video/helpers";

/**
 * Contract §13, "Every call counts", as an attack: workspace A's token sends JSON-RPC batches of
 * 100 tool calls (get_asset and list_asset_versions) back to back, past its rate limit, while
 * workspace B is measured the three ways of "Tested as a promise" (tests/helpers/other-tenant.ts).
 * Before each call of a batch counted, one batch cost one unit of the limit and a token got
 * 100 times its limit in tool calls. Now A gets exactly its limit in calls: the batch that crosses
 * it answers rate_limited JSON-RPC errors for the calls past it, and later POSTs answer 429.
 */

/** One call of warm-up, then 1,050: not a multiple of the batch size, so one batch straddles the limit. */
const LIMIT = 1_051;
const BATCH = 100;
const BATCHES = 20;

let deps: Awaited<ReturnType<typeof useVideoJobs>>;
let server: Awaited<ReturnType<typeof startEaselServer>>;
let attacker: Workspace;
let attackerToken: string;
let attackerAsset: string;
let victim: OtherTenant;

beforeAll(async () => {
  // Per token: B's reads (about 20 a second for a few seconds) stay well inside it.
  vi.stubEnv("EASEL_RATE_LIMIT_PER_MIN", String(LIMIT));
  resetEnvCache();
  deps = await useVideoJobs();
  // A sends over HTTP, as an assistant would: its batches reach the server as B's reads do.
  server = await startEaselServer({}, { "POST /mcp": mcpRoute.POST });
  attacker = await newWorkspace(deps.db);
  attackerToken = await newApiToken(deps.db, attacker, { scopes: ["read"] });
  attackerAsset = (await insertAsset(deps.db, attacker, { title: "Called" })).token;
  victim = await newOtherTenant(deps.db);
});

afterAll(async () => {
  await server?.close();
  vi.unstubAllEnvs();
  resetEnvCache();
});

const headers = { authorization: "", "mcp-protocol-version": "2025-06-18" };
const toolCall = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: id % 2 ? "get_asset" : "list_asset_versions", arguments: { organization: attacker.slug, asset_token: attackerAsset } },
});

type RpcAnswer = { id: number; result?: { isError?: boolean }; error?: { code: number; data?: { code?: string } } };
type Tally = { served: number; rateLimited: number; other: number; refusedPosts: number };

/** One batch of A's: each call's fate counted into `tally`. */
async function sendBatch(firstId: number, tally: Tally, size = BATCH) {
  const res = await fetch(`http://127.0.0.1:${server.port}/mcp`, {
    method: "POST",
    headers: { ...headers, authorization: `Bearer ${attackerToken}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify(Array.from({ length: size }, (_, i) => toolCall(firstId + i))),
  });
  const text = await res.text();
  if (res.status === 429) {
    expect(JSON.parse(text).errors[0].extensions.code).toBe("rate_limited");
    tally.refusedPosts++;
    return;
  }
  expect(res.status, text).toBe(200);
  // A batch of one may be answered with the one response alone.
  const answers = JSON.parse(text) as RpcAnswer[] | RpcAnswer;
  for (const answer of Array.isArray(answers) ? answers : [answers]) {
    if (answer.error?.data?.code === "rate_limited") tally.rateLimited++;
    else if (answer.result && answer.result.isError !== true) tally.served++;
    else tally.other++;
  }
}

describe("MCP batches of 100 tool calls past the rate limit", () => {
  it(`A gets ${LIMIT} calls a minute and rate_limited past them; another workspace keeps its reads, thumbnails and /healthz`, { timeout: 120_000 }, async () => {
    // Warm-up, counted like the rest: the first MCP request loads the server's tools, once per process.
    const warm: Tally = { served: 0, rateLimited: 0, other: 0, refusedPosts: 0 };
    await sendBatch(0, warm, 1);
    expect(warm).toEqual({ served: 1, rateLimited: 0, other: 0, refusedPosts: 0 });
    const probe = await measureOtherTenant({ port: server.port, db: deps.db, storage: deps.store.s3, tenant: victim });
    probe.upload();
    const tally: Tally = { served: 0, rateLimited: 0, other: 0, refusedPosts: 0 };
    const started = performance.now();
    for (let batch = 0; batch < BATCHES; batch++) await sendBatch(batch * BATCH + 1, tally);
    const attackMs = performance.now() - started;
    const figures = await probe.stop();

    console.log(`[mcp-batch-attack] ${BATCHES} batches of ${BATCH} tool calls in ${(attackMs / 1000).toFixed(1)} s: ${JSON.stringify(tally)}`);
    expect(tally).toEqual({ served: LIMIT - 1, rateLimited: BATCH - ((LIMIT - 1) % BATCH), other: 0, refusedPosts: BATCHES - Math.ceil((LIMIT - 1) / BATCH) });
    expectOtherTenantUnharmed(figures, "MCP batches");
  });
});
