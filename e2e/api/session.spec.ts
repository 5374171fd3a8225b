import { expect, test } from "@playwright/test";
import { baseURL, seed } from "../support/env";

// The web UI's session cookie on /v1 (README "Web UI"): reads anywhere, writes only same-origin,
// never where an API token is required; and the admin routes take the session only.
const slug = seed.workspaces.s3;

test("a signed-in session reads /v1 with its cookie alone", async ({ request }) => {
  const res = await request.get(`/v1/${slug}/boards`);
  expect(res.status()).toBe(200);
  expect(await res.json()).toMatchObject({ data: expect.any(Array), pagy: { current_page: 1 } });
});

test("a session writes only from this origin (CSRF guard)", async ({ request }) => {
  const body = { board: { title: "Written with the session" } };
  const crossSite = await request.post(`/v1/${slug}/boards`, { data: body, headers: { origin: "https://attacker.example", "sec-fetch-site": "cross-site" } });
  expect(crossSite.status()).toBe(401);
  expect((await crossSite.json()).errors[0].extensions.code).toBe("unauthenticated");
  const noOrigin = await request.post(`/v1/${slug}/boards`, { data: body });
  expect(noOrigin.status()).toBe(401);
  const sameOrigin = await request.post(`/v1/${slug}/boards`, { data: body, headers: { origin: baseURL } });
  expect(sameOrigin.status()).toBe(201);
});

test("a session cannot mint board access tokens: 403 api_token_required", async ({ request }) => {
  const board = (await (await request.post(`/v1/${slug}/boards`, { data: { board: { title: "Token target" } }, headers: { origin: baseURL } })).json()).data;
  const res = await request.post(`/v1/${slug}/access_tokens`, { data: { board_token: board.token, expires_in: 600 }, headers: { origin: baseURL } });
  expect(res.status()).toBe(403);
  expect((await res.json()).errors[0].extensions.code).toBe("api_token_required");
});

test.describe("without a session", () => {
  test.use({ storageState: { cookies: [], origins: [] } });

  test("/v1 answers 401 and API tokens behave as before", async ({ request }) => {
    expect((await request.get(`/v1/${slug}/boards`)).status()).toBe(401);
    const withToken = await request.get(`/v1/${slug}/boards`, { headers: { authorization: `Bearer ${seed.tokens.s3}` } });
    expect(withToken.status()).toBe(200);
  });

  test("the admin routes refuse API tokens", async ({ request }) => {
    const res = await request.get("/api/admin/workspaces", { headers: { authorization: `Bearer ${seed.tokens.s3}` } });
    expect(res.status()).toBe(401);
    expect((await res.json()).errors[0].extensions.code).toBe("unauthenticated");
  });

  test("pages send visitors to sign in", async ({ page }) => {
    await page.goto(`/w/${slug}/boards`);
    await expect(page).toHaveURL(/\/login$/);
  });
});
