import path from "node:path";
import { describe, expect, it } from "vitest";
import { appRouteTemplates, routeMatcher, UNMATCHED } from "./routes.mjs";

describe("route templates", () => {
  const templates = appRouteTemplates(path.resolve(import.meta.dirname, "../../app"));

  it("reads the app's routes and pages: groups and slots leave the path, private folders are skipped", () => {
    expect(templates).toEqual(expect.arrayContaining(["/", "/v1/[slug]/assets/[token]", "/v1/trigger/[id]", "/storage/s3/[[...path]]", "/media/[...path]", "/w/[slug]/boards", "/login"]));
    expect(templates.some((t) => /\(|@|\/_/.test(t))).toBe(false);
  });

  it("matches as the App Router does: static before dynamic before catch-all before optional catch-all", () => {
    const match = routeMatcher(["/healthz", ...templates]);
    expect(match("/v1/acme/assets/tok123")).toBe("/v1/[slug]/assets/[token]");
    expect(match("/v1/acme/assets/tok123/")).toBe("/v1/[slug]/assets/[token]");
    expect(match("/v1/acme/assets/upload_prepare")).toBe("/v1/[slug]/assets/upload_prepare");
    expect(match("/v1/acme/assets/tok123/nope/deeper")).toBe("/v1/[slug]/assets/[token]/[...rest]");
    expect(match("/v1/trigger/trg_1")).toBe("/v1/trigger/[id]");
    expect(match("/v1/trigger/trg_1/other/x")).toBe("/v1/[slug]/[...rest]"); // "trigger" as a slug, as Next.js falls back
    expect(match("/storage/s3")).toBe("/storage/s3/[[...path]]");
    expect(match("/storage/s3/bucket/a/b/c.bin")).toBe("/storage/s3/[[...path]]");
    expect(match("/healthz")).toBe("/healthz");
    expect(match("/")).toBe("/");
    expect(match("/media")).toBe(UNMATCHED);
    expect(match("/no/such/thing")).toBe(UNMATCHED);
    expect(match("/" + "a/".repeat(10_000))).toBe(UNMATCHED);
  });
});
