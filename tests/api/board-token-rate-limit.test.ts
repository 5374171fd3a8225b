import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as accessTokensRoute from "../../app/v1/[slug]/access_tokens/route";
import * as boardRoute from "../../app/v1/[slug]/boards/[boardToken]/route";
import * as searchRoute from "../../app/v1/[slug]/search/route";
import type { Board, Workspace } from "../../lib/db/schema";
import { resetEnvCache } from "../../lib/env";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { expectError } from "../helpers/envelopes";
import { newApiToken, newBoard, newWorkspace } from "../helpers/factories";

/**
 * Rate-limit buckets of board access tokens: each token counts on its own, under its own limit
 * (EASEL_BOARD_TOKEN_RATE_LIMIT_PER_MIN), apart from the API token that minted it.
 */
let ws: Workspace;
let board: Board;
let api: string;

beforeAll(async () => {
  process.env.EASEL_RATE_LIMIT_PER_MIN = "5";
  process.env.EASEL_BOARD_TOKEN_RATE_LIMIT_PER_MIN = "2";
  resetEnvCache();
  const deps = await useTestDeps();
  ws = await newWorkspace(deps.db);
  board = await newBoard(deps.db, ws);
  api = await newApiToken(deps.db, ws);
});
afterAll(() => {
  delete process.env.EASEL_RATE_LIMIT_PER_MIN;
  delete process.env.EASEL_BOARD_TOKEN_RATE_LIMIT_PER_MIN;
  resetEnvCache();
});

const mint = async () => {
  const res = await call(accessTokensRoute.POST, { method: "POST", path: `/v1/${ws.slug}/access_tokens`, token: api, json: { board_token: board.token, expires_in: 600 }, params: { slug: ws.slug } });
  expect(res.status).toBe(200);
  return { token: res.body.data.access_token as string, remaining: Number(res.headers.get("ratelimit-remaining")) };
};
const read = (token: string) => call(boardRoute.GET, { path: `/v1/${ws.slug}/boards/${board.token}`, token, params: { slug: ws.slug, boardToken: board.token } });
const search = (token: string) => call(searchRoute.GET, { path: `/v1/${ws.slug}/search?query=x`, token, params: { slug: ws.slug } });
const limitOf = (res: { headers: Headers }) => [res.headers.get("ratelimit-limit"), res.headers.get("ratelimit-remaining")];

describe("board access token rate limits", () => {
  it("count each board token in its own bucket, under the board-token limit, apart from the minting API token", async () => {
    const first = await mint();
    expect(first.remaining).toBe(4);
    const a = await read(first.token);
    expect(a.status).toBe(200);
    expect(limitOf(a)).toEqual(["2", "1"]);
    expect(limitOf(await search(first.token))).toEqual(["2", "0"]);
    const refused = await read(first.token);
    expectError(refused, 429, "rate_limited");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);

    // The API token spent one request (the mint) and none of the board token's.
    const second = await mint();
    expect(second.remaining).toBe(3);
    // A second board token of the same API token starts with a full bucket.
    expect(limitOf(await read(second.token))).toEqual(["2", "1"]);
    // The API token's own reads count against its own limit.
    expect(limitOf(await search(api))).toEqual(["5", "2"]);
  });
});
