import { eq } from "drizzle-orm";
import { encode } from "next-auth/jwt";
import { beforeAll, describe, expect, it } from "vitest";
import * as accessTokensRoute from "../../app/v1/[slug]/access_tokens/route";
import * as boardsRoute from "../../app/v1/[slug]/boards/route";
import { call } from "../../tests/helpers/call-route";
import { useTestDeps } from "../../tests/helpers/deps";
import { newApiToken, newWorkspace } from "../../tests/helpers/factories";
import type { Workspace } from "../db/schema";
import { users } from "../db/schema";
import { authSecret, isSameOriginRequest } from "./session-principal";
import { createAdminUser } from "./users";

const COOKIE = "authjs.session-token";
let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let cookie: string;

async function sessionCookie(sub: string, email: string) {
  const value = await encode({ token: { sub, email }, secret: await authSecret(deps.db), salt: COOKIE, maxAge: 3600 });
  return `${COOKIE}=${value}`;
}

beforeAll(async () => {
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db);
  const user = await createAdminUser(deps.db, { email: `ui-${ws.slug}@easel.test`, password: "correct horse", now: new Date() });
  cookie = await sessionCookie(String(user.id), user.email);
});

const listBoards = (headers: Record<string, string>) => call(boardsRoute.GET, { path: `/v1/${ws.slug}/boards`, headers, params: { slug: ws.slug } });
const createBoard = (headers: Record<string, string>) =>
  call(boardsRoute.POST, { method: "POST", path: `/v1/${ws.slug}/boards`, headers, json: { board: { title: "From the UI" } }, params: { slug: ws.slug } });

describe("web UI session on /v1", () => {
  it("reads with the session cookie alone", async () => {
    expect((await listBoards({ cookie })).status).toBe(200);
  });

  it("writes only from the same origin", async () => {
    expect((await createBoard({ cookie, "sec-fetch-site": "same-origin" })).status).toBe(201);
    expect((await createBoard({ cookie, origin: "http://easel.test" })).status).toBe(201);
    const crossSite = await createBoard({ cookie, origin: "https://evil.example", "sec-fetch-site": "cross-site" });
    expect(crossSite.status).toBe(401);
    expect(crossSite.body.errors[0].extensions.code).toBe("unauthenticated");
    expect((await createBoard({ cookie })).status).toBe(401);
  });

  it("ignores the cookie when an Authorization header is present", async () => {
    const res = await listBoards({ cookie, authorization: "Bearer easel_not-a-token" });
    expect(res.status).toBe(401);
    const token = await newApiToken(deps.db, ws, { scopes: ["read"] });
    expect((await listBoards({ cookie, authorization: `Bearer ${token}` })).status).toBe(200);
  });

  it("refuses a forged, foreign-secret or orphaned session", async () => {
    expect((await listBoards({ cookie: `${COOKIE}=garbage` })).status).toBe(401);
    const foreign = await encode({ token: { sub: "1" }, secret: "another-secret-another-secret-xx", salt: COOKIE, maxAge: 3600 });
    expect((await listBoards({ cookie: `${COOKIE}=${foreign}` })).status).toBe(401);
    const ghost = await createAdminUser(deps.db, { email: `ghost-${ws.slug}@easel.test`, password: "correct horse", now: new Date() });
    const ghostCookie = await sessionCookie(String(ghost.id), ghost.email);
    expect((await listBoards({ cookie: ghostCookie })).status).toBe(200);
    await deps.db.delete(users).where(eq(users.id, ghost.id));
    expect((await listBoards({ cookie: ghostCookie })).status).toBe(401);
  });

  it("cannot mint board access tokens: 403 api_token_required", async () => {
    const res = await call(accessTokensRoute.POST, {
      method: "POST",
      path: `/v1/${ws.slug}/access_tokens`,
      headers: { cookie, "sec-fetch-site": "same-origin" },
      json: { board_token: "whatever", expires_in: 600 },
      params: { slug: ws.slug },
    });
    expect(res.status).toBe(403);
    expect(res.body.errors[0].extensions.code).toBe("api_token_required");
  });
});

describe("isSameOriginRequest", () => {
  const req = (headers: Record<string, string>) => new Request("http://easel.test/v1/x/boards", { method: "POST", headers });
  it.each([
    [{ "sec-fetch-site": "same-origin" }, true],
    [{ origin: "http://easel.test" }, true],
    [{ origin: "http://easel.test.evil.example" }, false],
    [{ "sec-fetch-site": "same-site", origin: "http://cdn.easel.test" }, false],
    [{}, false],
  ])("%j → %s", (headers, expected) => {
    expect(isSameOriginRequest(req(headers))).toBe(expected);
  });
});
