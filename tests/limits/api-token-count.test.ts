import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import * as assetRoute from "../../app/v1/[slug]/assets/[token]/route";
import { hashToken, revokeApiToken } from "../../lib/auth/api-tokens";
import type { Db } from "../../lib/db";
import type { Asset, Workspace } from "../../lib/db/schema";
import { queryRows } from "../../lib/db/types";
import { resetEnvCache } from "../../lib/env";
import { countRequest } from "../../lib/http/rate-limit";
import { findApiTokenAndCount } from "../../lib/http/rate-limit-store";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { expectError } from "../helpers/envelopes";
import { insertAsset, newApiToken, newWorkspace } from "../helpers/factories";

/**
 * An API token's request is found and counted by one statement on PostgreSQL
 * (lib/http/authenticate-and-count.ts). It must count exactly as the two-statement path does:
 * one bucket per token (`api:<id>`, shared with MCP's count), once per request, a limit that holds
 * under concurrency, and nothing counted for an unknown or revoked token.
 */
const onPostgres = inject("testDatabase").kind === "postgres";
let db: Db;
let ws: Workspace;
let asset: Asset;

beforeAll(async () => {
  process.env.EASEL_RATE_LIMIT_PER_MIN = "4";
  resetEnvCache();
  db = (await useTestDeps()).db;
  ws = await newWorkspace(db);
  asset = await insertAsset(db, ws, { title: "counted" });
});
afterAll(() => {
  delete process.env.EASEL_RATE_LIMIT_PER_MIN;
  resetEnvCache();
});

const read = (token: string) => call(assetRoute.GET, { path: `/v1/${ws.slug}/assets/${asset.token}`, token, params: { slug: ws.slug, token: asset.token } });
const windowOf = async (bucket: string) =>
  (await queryRows<{ count: number }>(db, sql`select count from rate_limit_windows where bucket = ${bucket}`))[0]?.count ?? null;

describe(`an API token's requests are counted once each (${onPostgres ? "PostgreSQL: one statement" : "PGlite: in memory"})`, () => {
  it("the limit's requests succeed with a falling Remaining, the next is 429 rate_limited", async () => {
    const token = await newApiToken(db, ws);
    const remaining: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await read(token);
      expect(res.status).toBe(200);
      expect(res.body.data.token).toBe(asset.token);
      remaining.push(res.headers.get("ratelimit-remaining") ?? "");
    }
    expect(remaining).toEqual(["3", "2", "1", "0"]);
    const refused = await read(token);
    expectError(refused, 429, "rate_limited");
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  it("a revoked token is 401 and counts nothing against the token's bucket", async () => {
    const token = await newApiToken(db, ws);
    expect((await read(token)).status).toBe(200);
    expect(await revokeApiToken(db, token, new Date())).toBe(true);
    expectError(await read(token), 401, "unauthenticated");
    if (onPostgres) {
      const [{ id }] = await queryRows<{ id: number }>(db, sql`select id from api_tokens where token_hash = ${hashToken(token)}`);
      expect(await windowOf(`api:${id}`)).toBe(1);
      expect(await findApiTokenAndCount(db, hashToken(token), 4)).toBeNull();
      expect(await windowOf(`api:${id}`)).toBe(1);
    }
  });
});

describe.runIf(onPostgres)("findApiTokenAndCount (PostgreSQL)", () => {
  it("counts the bucket principalKey names, which MCP's countRequest counts too", async () => {
    const token = await newApiToken(db, ws);
    const found = await findApiTokenAndCount(db, hashToken(token), 10);
    expect(found?.workspace.id).toBe(ws.id);
    expect(found?.state.remaining).toBe(9);
    const bucket = `api:${found!.token.id}`;
    expect((await countRequest(db, bucket, 10)).remaining).toBe(8);
    expect((await findApiTokenAndCount(db, hashToken(token), 10))?.state.remaining).toBe(7);
    expect(await windowOf(bucket)).toBe(3);
  });

  it("30 concurrent requests at a limit of 12: exactly 12 allowed, each counted once", async () => {
    const token = await newApiToken(db, ws);
    const states = await Promise.all(Array.from({ length: 30 }, () => findApiTokenAndCount(db, hashToken(token), 12)));
    expect(states.filter((s) => s && !s.state.limited)).toHaveLength(12);
    expect(states.map((s) => s!.state.remaining).sort((a, b) => a - b)).toEqual([...Array(18).fill(0), ...Array.from({ length: 12 }, (_, i) => i)]);
    expect(await windowOf(`api:${states[0]!.token.id}`)).toBe(30);
  });

  it("an unknown token matches nothing and writes no window", async () => {
    const before = (await queryRows<{ n: number }>(db, sql`select count(*)::int as n from rate_limit_windows`))[0].n;
    expect(await findApiTokenAndCount(db, hashToken("easel_unknown-token-value"), 4)).toBeNull();
    expect((await queryRows<{ n: number }>(db, sql`select count(*)::int as n from rate_limit_windows`))[0].n).toBe(before);
  });
});
