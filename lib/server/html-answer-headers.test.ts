import http from "node:http";
import type net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { FALLBACK_PAGE_HEADERS } from "./html-answer-headers.mjs";
import { createEaselServer } from "./http-server.mjs";

/**
 * Easel's HTTP server gives every HTML answer of the app the page headers (contract §12, "Pages"),
 * also those proxy.ts never saw: Next.js's 404 page for a missing /_next/static file is the case
 * in point. The app behind the server here answers as Next.js does for each path.
 */
let server: http.Server | undefined;

afterEach(async () => {
  if (!server) return;
  const closing = server;
  server = undefined;
  closing.closeAllConnections();
  await new Promise((r) => closing.close(r));
});

const NOT_FOUND_PAGE = "<!DOCTYPE html><html><body><h1>404</h1></body></html>";

async function start() {
  server = createEaselServer(async (req, res) => {
    const path = req.url ?? "/";
    if (path.startsWith("/_next/static/")) {
      // Next.js 16 (measured against `npm start`): a plain-text "Not Found", set by setHeader, then
      // end (the head goes out through the implicit writeHead).
      res.statusCode = 404;
      res.setHeader("Content-Type", "text/plain; charset=utf-8");
      res.end("Not Found");
    } else if (path === "/static-ok.js") {
      res.setHeader("Content-Type", "application/javascript; charset=utf-8");
      res.end("export {}");
    } else if (path === "/unknown-page") {
      res.statusCode = 404;
      res.setHeader("Content-Type", "text/html; charset=utf-8");
      res.end(NOT_FOUND_PAGE);
    } else if (path === "/page") {
      // A page proxy.ts ran on: its own policy stays.
      res.setHeader("Content-Security-Policy", "script-src 'nonce-abc'");
      res.setHeader("Content-Type", "text/html; charset=utf-8");
      res.end("<p>page</p>");
    } else if (path === "/head-object") {
      res.writeHead(404, { "Content-Type": "text/html", "X-Frame-Options": "SAMEORIGIN" }).end(NOT_FOUND_PAGE);
    } else {
      res.writeHead(404, { "content-type": "application/json" }).end("{}");
    }
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return (server.address() as net.AddressInfo).port;
}

const get = (port: number, path: string) => fetch(`http://127.0.0.1:${port}${path}`);

describe("HTML answers without page headers", () => {
  it("the 404 of /_next/static and an HTML page without a policy get a CSP without scripts, no framing, nosniff and no referrer", async () => {
    const port = await start();
    for (const path of ["/_next/static/chunks/nope.js", "/unknown-page"]) {
      const res = await get(port, path);
      expect(res.status, path).toBe(404);
      for (const [name, value] of Object.entries(FALLBACK_PAGE_HEADERS)) expect(res.headers.get(name), `${path} ${name}`).toBe(value);
      const csp = res.headers.get("content-security-policy")!;
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain("script-src");
    }
    expect(await (await get(port, "/unknown-page")).text()).toBe(NOT_FOUND_PAGE);
  });

  it("headers given to writeHead count: the app's own X-Frame-Options stays, the missing ones are added", async () => {
    const port = await start();
    const res = await get(port, "/head-object");
    expect(res.headers.get("x-frame-options")).toBe("SAMEORIGIN");
    expect(res.headers.get("content-security-policy")).toBe(FALLBACK_PAGE_HEADERS["content-security-policy"]);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("a page that has its policy keeps it; a static file that was found is left alone", async () => {
    const port = await start();
    const page = await get(port, "/page");
    expect(page.headers.get("content-security-policy")).toBe("script-src 'nonce-abc'");
    expect(page.headers.get("x-frame-options")).toBeNull();
    const script = await get(port, "/static-ok.js");
    expect(script.status).toBe(200);
    expect(script.headers.get("content-security-policy")).toBeNull();
  });
});
