import { NextRequest } from "next/server";
import { describe, expect, it, vi } from "vitest";
import { resetEnvCache } from "../../lib/env";
import { config, proxy } from "../../proxy";

/**
 * proxy.ts in-process: what every page response carries (contract §12, "Pages"), the policy handed
 * on to Next.js so it stamps the nonce on its scripts, and the JSON depth limit on Server Function
 * calls. The browser suite (e2e/ui/page-security.spec.ts) checks the same against `npm start`.
 */
const page = (path: string, init: ConstructorParameters<typeof NextRequest>[1] = {}) => new NextRequest(`http://easel.test${path}`, init);

describe("proxy.ts", () => {
  it("a page answer carries a nonce CSP, no-referrer, nosniff; Next.js gets the same policy on the request", async () => {
    const res = await proxy(page("/w/studio/boards"));
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]{24}' 'strict-dynamic'/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("strict-transport-security")).toBeNull();
    // NextResponse.next({ request: { headers } }) hands request headers on as x-middleware-request-*.
    expect(res.headers.get("x-middleware-request-content-security-policy")).toBe(csp);
    const other = await proxy(page("/w/studio/boards"));
    expect(other.headers.get("content-security-policy")).not.toBe(csp);
  });

  it("over https (the X-Forwarded-Proto of a TLS proxy Easel trusts): HSTS; a client's own X-Forwarded-Proto is not believed", async () => {
    vi.stubEnv("EASEL_TRUST_PROXY", "");
    resetEnvCache();
    const direct = await proxy(page("/login", { headers: { "x-forwarded-proto": "https" } }));
    expect(direct.headers.get("strict-transport-security")).toBeNull();
    vi.stubEnv("EASEL_TRUST_PROXY", "1");
    resetEnvCache();
    const res = await proxy(page("/login", { headers: { "x-forwarded-proto": "https" } }));
    expect(res.headers.get("strict-transport-security")).toMatch(/^max-age=/);
    vi.unstubAllEnvs();
    resetEnvCache();
  });

  it("a Server Function call nested deeper than 64 levels answers 400 invalid_json; a normal one goes on", async () => {
    const action = (body: string) => page("/login", { method: "POST", headers: { "next-action": "0123456789abcdef", "content-type": "text/plain;charset=UTF-8" }, body });
    const deep = await proxy(action("[".repeat(100_000) + "]".repeat(100_000)));
    expect(deep.status).toBe(400);
    expect(await deep.json()).toEqual({ errors: [{ message: "The request body nests deeper than 64 levels", extensions: { code: "invalid_json" } }] });
    const fine = await proxy(action(JSON.stringify([{ email: "[[[[" }])));
    expect(fine.headers.get("x-middleware-next")).toBe("1");
  });

  it("runs on pages only: not the API, stored bytes or Next.js's static files", () => {
    const [matcher] = config.matcher;
    const runs = (path: string) => new RegExp(`^${matcher}$`).test(path);
    for (const path of ["/", "/login", "/boards", "/w/studio/assets/abc", "/docs/api", "/jobs"]) expect(runs(path), path).toBe(true);
    for (const path of ["/v1/studio/boards", "/v1", "/api/admin/workspaces", "/mcp", "/media/abc/display", "/storage/s3/easel/k", "/_next/static/chunks/a.js", "/favicon.ico"]) expect(runs(path), path).toBe(false);
  });
});
