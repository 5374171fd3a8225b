import fs from "node:fs";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "@playwright/test";
import { apiClient } from "../support/api";
import { dataDir, seed } from "../support/env";
import { expect, test } from "../support/page-test";

/**
 * Every page of the app, loaded directly by a browser whose time zone and locale differ from the
 * server's (which runs in UTC), renders without a React hydration error or any other console
 * error, and shows times in the browser's own zone and locale once hydrated (contract §14).
 */
const slug = seed.workspaces.s3;
const VIEWERS = [
  { timezoneId: "Pacific/Auckland", locale: "de-DE" },
  { timezoneId: "America/Los_Angeles", locale: "ja-JP" },
] as const;

/** The route of every page.tsx under app/, as the App Router maps it (route groups dropped). */
function appRoutes(): string[] {
  const root = path.join(process.cwd(), "app");
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && !entry.name.startsWith("_")) walk(full);
      else if (entry.name === "page.tsx") {
        const segments = path.relative(root, dir).split(path.sep).filter((s) => s && !/^\(.*\)$/.test(s));
        found.push(`/${segments.join("/")}`);
      }
    }
  };
  walk(root);
  return found.sort();
}

type Visit = { route: string; url: string; signedIn: boolean; status?: number };

/** From the page itself, so the admin API sees the page's origin and cookie. */
async function adminPost(page: Page, url: string, body: unknown): Promise<Record<string, any>> {
  const answer = await page.evaluate(
    async ([u, b]) => {
      const res = await fetch(u, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(b) });
      return { status: res.status, body: await res.text() };
    },
    [url, body] as const,
  );
  expect(answer.status, `${url}: ${answer.body}`).toBeLessThan(300);
  return JSON.parse(answer.body) as Record<string, any>;
}

/** Data for every page: a board, an image with versions, a video, a job run, an invitation. */
async function pagesToVisit(page: Page): Promise<Visit[]> {
  const api = apiClient(page.request, slug, seed.tokens.s3);
  const board = await api.createBoard("Hydration");
  const image = await api.upload(seed.files.image, { board: board.token, title: "Hydration picture" });
  await api.newVersion(image.token, seed.files.imageB, "a second look");
  await page.goto(`/w/${slug}/members`);
  const invitation = (await adminPost(page, `/api/admin/workspaces/${slug}/invitations`, { invitation: { email: `tz-${Date.now()}@easel.test`, role: "viewer" } })).data as { url: string };
  const runs = (await (await page.request.get("/api/admin/jobs/runs?limit=1")).json()) as { runs: { id: string }[] };
  expect(runs.runs.length, "a job run to open").toBeGreaterThan(0);
  const concrete: Record<string, Omit<Visit, "route">> = {
    "/": { url: "/", signedIn: true },
    "/boards": { url: "/boards", signedIn: true },
    "/docs/api": { url: "/docs/api", signedIn: true },
    "/invite/[token]": { url: new URL(invitation.url).pathname, signedIn: false },
    "/jobs": { url: "/jobs", signedIn: true },
    "/jobs/[id]": { url: `/jobs/${encodeURIComponent(runs.runs[0].id)}`, signedIn: true },
    "/login": { url: "/login", signedIn: false },
    "/w/[slug]": { url: `/w/${slug}`, signedIn: true },
    "/w/[slug]/assets/[token]": { url: `/w/${slug}/assets/${image.token}`, signedIn: true },
    "/w/[slug]/boards": { url: `/w/${slug}/boards`, signedIn: true },
    "/w/[slug]/boards/[boardToken]": { url: `/w/${slug}/boards/${board.token}`, signedIn: true },
    "/w/[slug]/members": { url: `/w/${slug}/members`, signedIn: true },
    "/w/[slug]/search": { url: `/w/${slug}/search?q=Hydration`, signedIn: true },
    "/w/[slug]/settings": { url: `/w/${slug}/settings`, signedIn: true },
    "/w/[slug]/tokens": { url: `/w/${slug}/tokens`, signedIn: true },
    "/w/[slug]/triggers": { url: `/w/${slug}/triggers`, signedIn: true },
    "/workspaces": { url: "/workspaces", signedIn: true },
  };
  // A page added to app/ without a visit here fails the test rather than going unchecked.
  expect(Object.keys(concrete).sort(), "every page of app/ is visited").toEqual(appRoutes());
  return [...Object.entries(concrete).map(([route, v]) => ({ route, ...v })), { route: "(not found)", url: "/no-such-page", signedIn: true, status: 404 }];
}

/** Loads `visit` directly and answers every console error and uncaught exception the page had. */
async function load(context: BrowserContext, visit: Visit): Promise<string[]> {
  const page = await context.newPage();
  const errors: string[] = [];
  const target = new URL(visit.url, "http://x").pathname;
  page.on("pageerror", (e) => errors.push(`uncaught: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    // The not-found page's own document is the one expected failed load.
    if (visit.status === 404 && /status of 404/.test(m.text()) && new URL(m.location().url).pathname === target) return;
    errors.push(`${m.text()} (${m.location().url})`);
  });
  const response = await page.goto(visit.url);
  expect(response?.status(), visit.url).toBe(visit.status ?? 200);
  // Hydrated: React has attached its props to the body; then its first effects have run.
  await page.waitForFunction(() => Object.keys(document.body).some((k) => k.startsWith("__reactProps$")));
  await page.waitForTimeout(750);
  // Every time on the page is in the viewer's own zone and locale by now, not the server's UTC form.
  const times = await page.locator("time[datetime]").evaluateAll((els) =>
    els.map((el) => {
      const iso = el.getAttribute("datetime") ?? "";
      const local = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso));
      return { text: el.textContent ?? "", local, title: el.getAttribute("title") };
    }),
  );
  for (const t of times) {
    expect.soft(t.text, `a time on ${visit.url}`).not.toMatch(/UTC$/);
    expect.soft([t.text, t.title], `a time on ${visit.url} in the viewer's zone`).toContain(t.local);
  }
  await page.close();
  return errors;
}

async function contextFor(browser: Browser, viewer: (typeof VIEWERS)[number], signedIn: boolean) {
  return browser.newContext({ ...viewer, storageState: signedIn ? path.join(dataDir, "admin-state.json") : { cookies: [], origins: [] } });
}

test("every page loads free of hydration and console errors in other time zones and locales", async ({ page, browser }) => {
  test.setTimeout(300_000);
  const visits = await pagesToVisit(page);
  // Every page in every zone is loaded before judging, so a failure lists all the pages it hit.
  const failures: Record<string, string[]> = {};
  for (const viewer of VIEWERS) {
    const contexts = { in: await contextFor(browser, viewer, true), out: await contextFor(browser, viewer, false) };
    try {
      for (const visit of visits) {
        const errors = await load(visit.signedIn ? contexts.in : contexts.out, visit);
        if (errors.length) failures[`${visit.route} (${visit.url}) in ${viewer.timezoneId}, ${viewer.locale}`] = errors;
      }
    } finally {
      await contexts.in.close();
      await contexts.out.close();
    }
  }
  expect(failures, "console errors of directly loaded pages").toEqual({});
});

test("the app has its own icon: /favicon.ico answers an icon, fetched from nowhere else", async ({ page }) => {
  const icon = await page.request.get("/favicon.ico");
  expect(icon.status()).toBe(200);
  expect(icon.headers()["content-type"]).toBe("image/x-icon");
  // An ICO file: reserved 0, type 1 (icon), at least one image.
  const bytes = await icon.body();
  expect([bytes.readUInt16LE(0), bytes.readUInt16LE(2)]).toEqual([0, 1]);
  expect(bytes.readUInt16LE(4)).toBeGreaterThan(0);
  await page.goto(`/w/${slug}/boards`);
  const links = await page.locator('link[rel~="icon"]').evaluateAll((els) => els.map((el) => new URL((el as HTMLLinkElement).href).origin));
  expect(links.length).toBeGreaterThan(0);
  for (const origin of links) expect(origin).toBe(new URL(page.url()).origin);
});
