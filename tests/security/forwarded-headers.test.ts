import { count, eq } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as invitationsRoute from "../../app/api/admin/workspaces/[slug]/invitations/route";
import * as assetRoute from "../../app/v1/[slug]/assets/[token]/route";
import * as prepareRoute from "../../app/v1/[slug]/assets/upload_prepare/route";
import * as boardsRoute from "../../app/v1/[slug]/boards/route";
import { boards, type Workspace } from "../../lib/db/schema";
import { resetEnvCache } from "../../lib/env";
import { servedOverHttps } from "../../lib/http/page-security-headers";
import { originSettingsWarning, requestOrigin } from "../../lib/http/request-origin";
import { clientOrigin } from "../../lib/objectstore/origin";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { insertAsset, newApiToken, newWorkspace, uniq } from "../helpers/factories";
import { newUser, SESSION_COOKIE, sessionHeaders } from "../helpers/sessions";

/**
 * X-Forwarded-Host and X-Forwarded-Proto are anyone's to write unless a proxy Easel trusts wrote
 * them (EASEL_TRUST_PROXY): without it they change neither the same-origin check of a signed-in
 * session nor the host of any link handed out. EASEL_PUBLIC_URL is unset throughout.
 */
let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let apiToken: string;
let cookieOnly: Record<string, string>;
let sameOriginSession: Record<string, string>;

const forged = { "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" };

function useEnv(vars: Record<string, string | undefined>) {
  for (const name of ["EASEL_PUBLIC_URL", "EASEL_MEDIA_ORIGIN", "EASEL_TRUST_PROXY"]) vi.stubEnv(name, vars[name]);
  resetEnvCache();
}

beforeAll(async () => {
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db);
  apiToken = await newApiToken(deps.db, ws);
  sameOriginSession = await sessionHeaders(deps.db, await newUser(deps.db, { owner: true }));
  cookieOnly = { cookie: sameOriginSession.cookie };
  expect(cookieOnly.cookie).toContain(SESSION_COOKIE);
});

afterEach(() => {
  vi.unstubAllEnvs();
  resetEnvCache();
});

const boardCount = async () => (await deps.db.select({ n: count() }).from(boards).where(eq(boards.workspaceId, ws.id)))[0].n;
const createBoard = (headers: Record<string, string>) =>
  call(boardsRoute.POST, { method: "POST", path: `/v1/${ws.slug}/boards`, headers: { host: "easel.test", ...headers }, json: { board: { title: uniq("Board") } }, params: { slug: ws.slug } });
const invite = (headers: Record<string, string>) =>
  call(invitationsRoute.POST, {
    method: "POST",
    path: `/api/admin/workspaces/${ws.slug}/invitations`,
    headers: { host: "easel.test", ...sameOriginSession, ...headers },
    json: { invitation: { email: `${uniq("inv")}@easel.test`, role: "viewer" } },
    params: { slug: ws.slug },
  });
const hostOf = (url: string) => new URL(url).origin;

describe("without EASEL_TRUST_PROXY, forwarded headers are not believed", () => {
  it("a session POST from another site with X-Forwarded-Host/-Proto naming that site is refused, and writes nothing", async () => {
    useEnv({});
    const before = await boardCount();
    const attempt = await createBoard({ ...cookieOnly, origin: "https://evil.example", ...forged });
    expect(attempt.status).toBe(401);
    expect(attempt.body.errors[0].extensions.code).toBe("unauthenticated");
    expect(await boardCount()).toBe(before);
    // The same session from this site's own origin writes.
    expect((await createBoard({ ...cookieOnly, origin: "http://easel.test", ...forged })).status).toBe(201);
  });

  it("invitation links, upload URLs and media links are built on the request's own Host", async () => {
    useEnv({});
    const invited = await invite(forged);
    expect(invited.status).toBe(201);
    expect(hostOf(invited.body.data.url)).toBe("http://easel.test");

    const prepared = await call(prepareRoute.POST, {
      method: "POST",
      path: `/v1/${ws.slug}/assets/upload_prepare`,
      token: apiToken,
      headers: { host: "easel.test", ...forged },
      json: { asset: { media_type: "image/png", size: 10 } },
      params: { slug: ws.slug },
    });
    expect(prepared.status).toBe(200);
    expect(hostOf(prepared.body.data.upload_url)).toBe("http://easel.test");

    const asset = await insertAsset(deps.db, ws);
    const shown = await call(assetRoute.GET, { path: `/v1/${ws.slug}/assets/${asset.token}`, token: apiToken, headers: { host: "easel.test", ...forged }, params: { slug: ws.slug, token: asset.token } });
    expect(shown.status).toBe(200);
    expect(hostOf(shown.body.data.display_url)).toBe("http://easel.test");

    const req = new Request("http://easel.test/storage/gcs/b/k", { headers: { host: "easel.test", ...forged } });
    expect(clientOrigin(req, new URL(req.url))).toBe("http://easel.test");
    // Nor does a forged X-Forwarded-Proto turn on HSTS for a page served over http.
    expect(servedOverHttps(req)).toBe(false);
  });

  it("a Host header that is not a host is ignored, not pasted into links", () => {
    for (const host of ["evil.example/path", "a b", "user@evil.example", "evil.example:port"]) {
      const req = new Request("http://easel.test/v1/x", { headers: { host } });
      expect(requestOrigin(req, 0), host).toBe("http://easel.test");
    }
  });
});

describe("with EASEL_TRUST_PROXY, the proxy's forwarded values are used", () => {
  const proxied = { "x-forwarded-host": "assets.example.com", "x-forwarded-proto": "https" };

  it("links and the same-origin check follow the host and scheme the proxy forwarded", async () => {
    useEnv({ EASEL_TRUST_PROXY: "1" });
    const invited = await invite(proxied);
    expect(hostOf(invited.body.data.url)).toBe("https://assets.example.com");
    const asset = await insertAsset(deps.db, ws);
    const shown = await call(assetRoute.GET, { path: `/v1/${ws.slug}/assets/${asset.token}`, token: apiToken, headers: { host: "10.0.0.5:3000", ...proxied }, params: { slug: ws.slug, token: asset.token } });
    expect(hostOf(shown.body.data.display_url)).toBe("https://assets.example.com");
    expect((await createBoard({ ...cookieOnly, origin: "https://assets.example.com", ...proxied })).status).toBe(201);
    const req = new Request("http://10.0.0.5:3000/x", { headers: proxied });
    expect(clientOrigin(req, new URL(req.url))).toBe("https://assets.example.com");
    expect(servedOverHttps(req)).toBe(true);
  });

  it("reads the entry the outermost trusted proxy wrote; what a client put before it is ignored", () => {
    const req = new Request("http://10.0.0.5:3000/x", { headers: { "x-forwarded-host": "evil.example, assets.example.com", "x-forwarded-proto": "http, https" } });
    expect(requestOrigin(req, 1)).toBe("https://assets.example.com");
    expect(requestOrigin(req, 2)).toBe("http://evil.example");
  });
});

describe("the start-up warning", () => {
  it("is logged in production when neither EASEL_PUBLIC_URL nor EASEL_TRUST_PROXY is set, and only then", () => {
    expect(originSettingsWarning({ EASEL_TRUST_PROXY: 0 }, "production")).toMatch(/EASEL_PUBLIC_URL/);
    expect(originSettingsWarning({ EASEL_TRUST_PROXY: 1 }, "production")).toBeNull();
    expect(originSettingsWarning({ EASEL_TRUST_PROXY: 0, EASEL_PUBLIC_URL: "https://a.example" }, "production")).toBeNull();
    expect(originSettingsWarning({ EASEL_TRUST_PROXY: 0 }, "development")).toBeNull();
  });
});
