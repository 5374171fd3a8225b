import { beforeAll, describe, expect, it } from "vitest";
import * as restRoute from "../../app/v1/[slug]/[...rest]/route";
import * as boardRestRoute from "../../app/v1/[slug]/boards/[boardToken]/[...rest]/route";
import * as childrenRoute from "../../app/v1/[slug]/boards/[boardToken]/children/route";
import * as boardsRoute from "../../app/v1/[slug]/boards/route";
import type { Workspace } from "../../lib/db/schema";
import type { Deps } from "../../lib/deps";
import { resetEnvCache } from "../../lib/env";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { expectError, expectRateHeaders } from "../helpers/envelopes";
import { newApiToken, newBoard, newWorkspace, uniq } from "../helpers/factories";

let deps: Deps;
let ws: Workspace;
let rw: string;

beforeAll(async () => {
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db);
  rw = await newApiToken(deps.db, ws);
});

describe("unknown routes and methods", () => {
  it("404 route_not_found in the envelope for unknown paths", async () => {
    for (const method of ["GET", "POST", "DELETE"]) {
      const res = await call(restRoute[method as "GET"], { method, path: `/v1/${ws.slug}/nope`, token: rw, params: { slug: ws.slug, rest: ["nope"] } });
      expectError(res, 404, "route_not_found");
      expectRateHeaders(res);
    }
    const deep = await call(boardRestRoute.GET, { path: `/v1/${ws.slug}/boards/x/y/z`, params: { slug: ws.slug, boardToken: "x", rest: ["y", "z"] } });
    expectError(deep, 404, "route_not_found");
  });

  it("405 method_not_allowed with an Allow header naming the route's methods", async () => {
    for (const method of ["PUT", "DELETE", "PATCH"] as const) {
      const res = await call(boardsRoute[method], { method, path: `/v1/${ws.slug}/boards`, token: rw, params: { slug: ws.slug } });
      expectError(res, 405, "method_not_allowed");
      expect(res.headers.get("allow")).toBe("GET, POST");
    }
    const res = await call(childrenRoute.POST, { method: "POST", path: `/v1/${ws.slug}/boards/x/children`, token: rw, json: {}, params: { slug: ws.slug, boardToken: "x" } });
    expect(res.headers.get("allow")).toBe("GET");
  });

  it("answers CORS preflight with the allowed methods", async () => {
    const res = await boardsRoute.OPTIONS(new Request(`http://easel.test/v1/${ws.slug}/boards`, { method: "OPTIONS" }), { params: Promise.resolve({ slug: ws.slug }) });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-methods")).toBe("GET, POST");
    expect(res.headers.get("access-control-allow-headers")).toMatch(/Authorization/);
  });
});

describe("Idempotency-Key on POST", () => {
  const post = (key: string, json: unknown, token = rw) =>
    call(boardsRoute.POST, { method: "POST", path: `/v1/${ws.slug}/boards`, token, json, headers: { "idempotency-key": key }, params: { slug: ws.slug } });

  it("replays the first response and writes once", async () => {
    const parent = await newBoard(deps.db, ws);
    const key = uniq("idem");
    const body = { board: { title: "Once", parent_token: parent.token } };
    const first = await post(key, body);
    const again = await post(key, body);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.data.token).toBe(first.body.data.token);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const kids = await call(childrenRoute.GET, { path: `/v1/${ws.slug}/boards/${parent.token}/children`, token: rw, params: { slug: ws.slug, boardToken: parent.token } });
    expect(kids.body.pagy.total_count).toBe(1);
  });

  it("refuses the same key with a different body, and keys of different tokens do not collide", async () => {
    const key = uniq("idem");
    await post(key, { board: { title: "A" } });
    expectError(await post(key, { board: { title: "B" } }), 422, "idempotency_key_reused");
    const other = await newApiToken(deps.db, ws);
    const res = await post(key, { board: { title: "A" } }, other);
    expect(res.status).toBe(201);
    expect(res.headers.get("idempotent-replayed")).toBeNull();
  });

  it("replays a validation error too, without writing", async () => {
    const key = uniq("idem");
    expectError(await post(key, { board: {} }), 422, "validation_failed");
    expectError(await post(key, { board: {} }), 422, "validation_failed");
  });
});

describe("rate limits", () => {
  it("answers 429 rate_limited with Retry-After once a token's minute budget is spent", async () => {
    process.env.EASEL_RATE_LIMIT_PER_MIN = "3";
    resetEnvCache();
    try {
      const token = await newApiToken(deps.db, ws);
      const get = () => call(boardsRoute.GET, { path: `/v1/${ws.slug}/boards`, token, params: { slug: ws.slug } });
      const seen = [];
      for (let i = 0; i < 4; i++) seen.push(await get());
      expect(seen.slice(0, 3).map((r) => r.status)).toEqual([200, 200, 200]);
      expect(seen.map((r) => r.headers.get("ratelimit-remaining"))).toEqual(["2", "1", "0", "0"]);
      expectError(seen[3], 429, "rate_limited");
      expect(Number(seen[3].headers.get("retry-after"))).toBeGreaterThan(0);
      // Another token has its own bucket.
      const other = await newApiToken(deps.db, ws);
      expect((await call(boardsRoute.GET, { path: `/v1/${ws.slug}/boards`, token: other, params: { slug: ws.slug } })).status).toBe(200);
    } finally {
      delete process.env.EASEL_RATE_LIMIT_PER_MIN;
      resetEnvCache();
    }
  });
});
