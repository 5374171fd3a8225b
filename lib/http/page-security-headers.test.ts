import { describe, expect, it } from "vitest";
import type { Env } from "../env";
import { contentOrigins, newNonce, pageSecurityHeaders, servedOverHttps } from "./page-security-headers";

const baseEnv = { EASEL_S3_FORCE_PATH_STYLE: false } as Env;
const directives = (csp: string) => new Map(csp.split("; ").map((d) => [d.split(" ")[0], d.split(" ").slice(1)] as const));
const headersFor = (o: Partial<Parameters<typeof pageSecurityHeaders>[0]> = {}) =>
  pageSecurityHeaders({ nonce: "bm9uY2U=", https: false, development: false, contentOrigins: [], ...o });

describe("page security headers", () => {
  it("scripts run by this response's nonce only; no framing, no referrer, nosniff", () => {
    const h = headersFor();
    const csp = directives(h["Content-Security-Policy"]);
    expect(csp.get("script-src")).toEqual(["'self'", "'nonce-bm9uY2U='", "'strict-dynamic'"]);
    expect(h["Content-Security-Policy"]).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
    expect(csp.get("frame-ancestors")).toEqual(["'none'"]);
    expect(csp.get("object-src")).toEqual(["'none'"]);
    expect(csp.get("default-src")).toEqual(["'self'"]);
    expect(h["Referrer-Policy"]).toBe("no-referrer");
    expect(h["X-Content-Type-Options"]).toBe("nosniff");
    expect(h["Strict-Transport-Security"]).toBeUndefined();
    expect(csp.has("upgrade-insecure-requests")).toBe(false);
  });

  it("allows what the pages need: blob: media and workers (hls.js), data:/blob: images (upload previews), data: answers to the uploader", () => {
    const csp = directives(headersFor()["Content-Security-Policy"]);
    expect(csp.get("media-src")).toEqual(["'self'", "blob:"]);
    expect(csp.get("worker-src")).toEqual(["'self'", "blob:"]);
    expect(csp.get("img-src")).toEqual(["'self'", "data:", "blob:"]);
    expect(csp.get("connect-src")).toEqual(["'self'", "data:"]);
  });

  it("next dev only: 'unsafe-eval' for scripts and inline style elements", () => {
    const dev = directives(headersFor({ development: true })["Content-Security-Policy"]);
    expect(dev.get("script-src")).toContain("'unsafe-eval'");
    expect(dev.get("style-src")).toContain("'unsafe-inline'");
    expect(directives(headersFor()["Content-Security-Policy"]).get("style-src")).toEqual(["'self'", "'nonce-bm9uY2U='"]);
  });

  it("over https: HSTS and upgrade-insecure-requests", () => {
    const h = headersFor({ https: true });
    expect(h["Strict-Transport-Security"]).toMatch(/^max-age=\d{8,}/);
    expect(h["Content-Security-Policy"]).toMatch(/; upgrade-insecure-requests$/);
  });

  it("media and upload origins join img-src, media-src and connect-src", () => {
    const csp = directives(headersFor({ contentOrigins: ["https://media.example.net", "https://s3.example.net"] })["Content-Security-Policy"]);
    for (const d of ["img-src", "media-src", "connect-src"]) expect(csp.get(d)).toEqual(expect.arrayContaining(["https://media.example.net", "https://s3.example.net"]));
    expect(csp.get("script-src")).not.toContain("https://media.example.net");
  });

  it("a nonce is 128 random bits, new every time", () => {
    const a = newNonce();
    expect(Buffer.from(a, "base64")).toHaveLength(16);
    expect(newNonce()).not.toBe(a);
  });
});

describe("contentOrigins", () => {
  it("none beyond this origin by default", () => {
    expect(contentOrigins(baseEnv)).toEqual([]);
  });

  it("the media origin, the public URL, an S3-compatible endpoint (path and virtual-hosted style)", () => {
    const e = { ...baseEnv, EASEL_MEDIA_ORIGIN: "https://media.example.net/", EASEL_PUBLIC_URL: "https://easel.example.net/app", EASEL_S3_BUCKET: "assets", EASEL_S3_ENDPOINT: "https://s3.example.net:9000" } as Env;
    expect(contentOrigins(e)).toEqual(["https://media.example.net", "https://easel.example.net", "https://s3.example.net:9000", "https://assets.s3.example.net:9000"]);
    expect(contentOrigins({ ...e, EASEL_S3_FORCE_PATH_STYLE: true })).not.toContain("https://assets.s3.example.net:9000");
  });

  it("AWS S3 when a bucket has no endpoint; Google Cloud Storage for a GCS bucket", () => {
    expect(contentOrigins({ ...baseEnv, EASEL_S3_BUCKET: "assets", EASEL_S3_REGION: "eu-west-1" } as Env)).toContain("https://assets.s3.eu-west-1.amazonaws.com");
    expect(contentOrigins({ ...baseEnv, EASEL_GCS_BUCKET: "assets" } as Env)).toEqual(["https://storage.googleapis.com"]);
  });
});

describe("servedOverHttps", () => {
  const req = (url: string, headers: Record<string, string> = {}) => ({ url, headers: new Headers(headers) });
  it("from the public URL, the request, or the X-Forwarded-Proto of a TLS proxy Easel trusts (EASEL_TRUST_PROXY)", () => {
    const direct = { ...baseEnv, EASEL_TRUST_PROXY: 0 } as Env;
    const proxied = { ...baseEnv, EASEL_TRUST_PROXY: 1 } as Env;
    expect(servedOverHttps(req("http://localhost:3000/login"), direct)).toBe(false);
    expect(servedOverHttps(req("https://easel.example.net/login"), direct)).toBe(true);
    expect(servedOverHttps(req("http://10.0.0.5:3000/login", { "x-forwarded-proto": "https" }), proxied)).toBe(true);
    expect(servedOverHttps(req("http://10.0.0.5:3000/login", { "x-forwarded-proto": "http" }), proxied)).toBe(false);
    // Without a trusted proxy the header is anyone's to write.
    expect(servedOverHttps(req("http://10.0.0.5:3000/login", { "x-forwarded-proto": "https" }), direct)).toBe(false);
    expect(servedOverHttps(req("http://10.0.0.5:3000/login"), { ...baseEnv, EASEL_PUBLIC_URL: "https://easel.example.net" } as Env)).toBe(true);
  });
});
