import fs from "node:fs";
import { expect, test, type APIRequestContext, type BrowserContext, type Page } from "@playwright/test";
import { apiClient } from "../support/api";
import { baseURL, seed } from "../support/env";

/**
 * Contract §12, "untrusted bytes never run on Easel's origin", checked in the browser: a signed-in
 * owner opens every URL the API hands out for uploads a browser could run. Each file's payload tries
 * what the account-takeover report did (mint an API token in another workspace through the admin
 * API, read /v1, change the opener's title). Nothing may reach /api/admin or /v1, the opener's title
 * stays, and each bytes response says nosniff, `default-src 'none'; sandbox`, and attachment for
 * the types a browser runs as a document or script.
 */
const slug = seed.workspaces.s3;
const victim = seed.workspaces.free;
const PWNED = "pwned-by-upload";

/** The script every probe carries: each line is one thing the attacker wants. */
const payload = `
document.title = "${PWNED}";
try { top.document.title = "${PWNED}"; } catch (e) {}
try { opener.document.title = "${PWNED}"; } catch (e) {}
fetch("${baseURL}/api/admin/workspaces/${victim}/tokens", { method: "POST", credentials: "include", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: { name: "${PWNED}", scopes: ["read", "write"], webhooks: true } }) });
fetch("${baseURL}/v1/${slug}/boards", { credentials: "include" });
`;

const html = `<!doctype html><html><head><title>probe</title></head><body><p>probe</p><script>${payload}</script></body></html>`;
const xhtml = `<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>probe</title></head><body><p>probe</p><script>//<![CDATA[
${payload}
//]]></script></body></html>`;
const svgScript = `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200" viewBox="0 0 200 200"><rect width="200" height="200" fill="#c33"/><script>//<![CDATA[
${payload}
//]]></script></svg>`;
const svgOnload = `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200" viewBox="0 0 200 200" onload="${payload.replace(/"/g, "&quot;").replace(/\n/g, " ")}"><circle cx="100" cy="100" r="80" fill="#36c"/></svg>`;
const xslt = `<?xml version="1.0" encoding="UTF-8"?>
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <xsl:output method="html"/>
  <xsl:template match="/"><html><body><p>transformed</p><script>${payload.replace(/&/g, "&amp;").replace(/</g, "&lt;")}</script></body></html></xsl:template>
</xsl:stylesheet>`;
const xmlWithXslt = (stylesheetUrl: string) => `<?xml version="1.0" encoding="UTF-8"?>
<?xml-stylesheet type="text/xsl" href="${stylesheetUrl.replace(/&/g, "&amp;")}"?>
<probe>data</probe>`;

/** Content types a browser shows as a picture or plays, and nothing more: the only ones allowed inline. */
const INERT = /^(image\/(png|jpeg|gif|webp|avif)|video\/|audio\/|application\/vnd\.apple\.mpegurl|application\/x-mpegurl)/i;

type Probe = { label: string; url: string };

/** Every URL the API hands out for the asset, plus original and display through `?token=` with a board access token. */
async function urlsOf(api: ReturnType<typeof apiClient>, token: string, boardToken: string, label: string): Promise<Probe[]> {
  const asset = await api.asset(token);
  const urls: Probe[] = [{ label: `${label} display_url`, url: asset.display_url }];
  for (const t of asset.thumbnails ?? []) urls.push({ label: `${label} thumbnail ${t.size}`, url: t.url });
  if (asset.stream_url) urls.push({ label: `${label} stream_url`, url: asset.stream_url });
  const origin = new URL(asset.display_url).origin;
  for (const kind of ["original", "display"]) urls.push({ label: `${label} ${kind}?token=`, url: `${origin}/media/${token}/${kind}?token=${encodeURIComponent(boardToken)}` });
  return urls;
}

/** A request any probe page made that reached the admin API or /v1, whatever the origin it went to. */
function watchForbiddenRequests(context: BrowserContext, opener: Page) {
  const reached: string[] = [];
  context.on("request", (r) => {
    let from: Page | null = null;
    try {
      from = r.frame().page();
    } catch {
      from = null; // a worker's request: still counts, it was not the opener page's own
    }
    if (from === opener) return;
    const { pathname } = new URL(r.url());
    if (pathname.startsWith("/api/admin") || pathname === "/v1" || pathname.startsWith("/v1/")) reached.push(`${r.method()} ${r.url()}`);
  });
  return reached;
}

/**
 * Opens `url` from the opener with window.open (so a script that ran could reach `opener`), waits
 * for the page to load, or to turn into a download (a download ran nothing; the browser then
 * closes the empty window), and gives any script a moment to send its requests.
 */
async function openFrom(opener: Page, url: string): Promise<"download" | "page" | "closed"> {
  const [popup] = await Promise.all([opener.context().waitForEvent("page"), opener.evaluate((u) => void window.open(u, "_blank"), url)]);
  let downloaded = false;
  popup.on("download", (d) => {
    downloaded = true;
    void d.cancel().catch((err) => console.warn(`cancelling the download of ${url}: ${err}`));
  });
  const settled = await Promise.race([
    popup.waitForLoadState("load").then(
      () => "page" as const,
      () => "closed" as const, // closed before it loaded: the navigation became a download
    ),
    popup.waitForEvent("close").then(() => "closed" as const),
  ]);
  await opener.waitForTimeout(750);
  if (!popup.isClosed()) await popup.close();
  return downloaded ? "download" : settled;
}

async function checkHeaders(request: APIRequestContext, probe: Probe) {
  const res = await request.get(probe.url, { maxRedirects: 0 });
  expect.soft(res.status(), `${probe.label}: ${probe.url}`).toBe(200);
  const h = res.headers();
  expect.soft(h["x-content-type-options"], `${probe.label}: nosniff`).toBe("nosniff");
  const csp = (h["content-security-policy"] ?? "").split(";").map((d) => d.trim().replace(/\s+/g, " "));
  expect.soft(csp, `${probe.label}: Content-Security-Policy`).toContain("default-src 'none'");
  expect.soft(csp, `${probe.label}: sandbox without allow-scripts`).toContain("sandbox");
  const type = (h["content-type"] ?? "").split(";")[0].trim();
  if (!INERT.test(type)) expect.soft(h["content-disposition"] ?? "", `${probe.label} (${type || "no type"}) is served as an attachment`).toMatch(/^attachment/i);
}

test("uploads a browser could run never run on Easel's origin, for a signed-in owner", async ({ page, request }, testInfo) => {
  test.setTimeout(180_000);
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard("Untrusted bytes");
  const file = (name: string, text: string) => {
    const p = testInfo.outputPath(name);
    fs.writeFileSync(p, text);
    return p;
  };

  const stylesheet = await api.upload(file("probe.xsl", xslt), { board: board.token, mediaType: "application/xslt+xml", title: "probe.xsl" });
  const uploads = [
    { label: "HTML", path: file("probe.html", html), mediaType: "text/html" },
    { label: "XHTML", path: file("probe.xhtml", xhtml), mediaType: "application/xhtml+xml" },
    { label: "SVG <script>", path: file("probe-script.svg", svgScript), mediaType: "image/svg+xml" },
    { label: "SVG onload", path: file("probe-onload.svg", svgOnload), mediaType: "image/svg+xml" },
    { label: "XML + XSLT", path: file("probe.xml", xmlWithXslt(stylesheet.display_url)), mediaType: "application/xml" },
    { label: "JavaScript", path: file("probe.js", payload), mediaType: "text/javascript" },
    { label: "PNG of HTML bytes", path: file("probe-html.png", html), mediaType: "image/png" },
  ];
  const assets = [{ label: "XSLT", token: stylesheet.token as string }];
  for (const u of uploads) assets.push({ label: u.label, token: (await api.upload(u.path, { board: board.token, mediaType: u.mediaType, title: u.label })).token });

  const minted = await request.post(`/v1/${slug}/access_tokens`, { headers: { authorization: `Bearer ${seed.tokens.s3}` }, data: { board_token: board.token, expires_in: 3600 } });
  expect(minted.status()).toBe(200);
  const boardToken = (await minted.json()).data.access_token as string;

  // The opener: one of Easel's own pages, in the owner's signed-in browser.
  await page.goto("/docs/api");
  const openerTitle = await page.title();
  const reached = watchForbiddenRequests(page.context(), page);

  const probeAll = async (round: string) => {
    const seen = new Set<string>();
    for (const a of assets) {
      for (const probe of await urlsOf(api, a.token, boardToken, a.label)) {
        if (seen.has(probe.url)) continue;
        seen.add(probe.url);
        const before = reached.length;
        const outcome = await openFrom(page, probe.url);
        testInfo.annotations.push({ type: round, description: `${probe.label}: ${outcome}` });
        // Soft: one run lists every URL that let a script run, not only the first.
        expect.soft(reached.slice(before), `${probe.label} (${probe.url}) made requests`).toEqual([]);
        const title = await page.title();
        expect.soft(title, `${probe.label} changed the opener's title`).toBe(openerTitle);
        if (title !== openerTitle) await page.evaluate((t) => void (document.title = t), openerTitle);
        await checkHeaders(request, probe);
      }
    }
  };

  // Right after upload, when display still serves the original (no thumbnails yet)…
  await probeAll("just uploaded");
  // …and once processing has made the SVGs' thumbnails, which display then serves.
  for (const a of assets.filter((x) => x.label.startsWith("SVG"))) {
    await expect.poll(async () => (await api.asset(a.token)).thumbnails.length, { timeout: 60_000, message: `${a.label} thumbnails` }).toBeGreaterThan(0);
  }
  await probeAll("processed");

  // The takeover itself did not happen: no token was minted in the other workspace.
  const victimTokens = await request.get(`/api/admin/workspaces/${victim}/tokens`);
  expect(victimTokens.status()).toBe(200);
  expect(JSON.stringify(await victimTokens.json())).not.toContain(PWNED);
});
