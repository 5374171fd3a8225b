import { beforeAll, describe, expect, expectTypeOf, it, vi } from "vitest";
import type { z } from "zod";
import * as accessTokensSchema from "../../app/v1/[slug]/access_tokens/schema";
import * as assetSchema from "../../app/v1/[slug]/assets/[token]/schema";
import * as assetsSchema from "../../app/v1/[slug]/assets/schema";
import * as completeSchema from "../../app/v1/[slug]/assets/upload_complete/schema";
import * as prepareSchema from "../../app/v1/[slug]/assets/upload_prepare/schema";
import * as boardsSchema from "../../app/v1/[slug]/boards/schema";
import * as openapiRoute from "../../app/v1/openapi.json/route";
import * as triggerSchema from "../../app/v1/trigger/schema";
import { resetEnvCache } from "../../lib/env";
import { ERROR_STATUS, type ErrorCode } from "../../lib/errors";
import { openApiDocument } from "../../lib/openapi/document";
import { errorCodesOf, OPERATIONS } from "../../lib/openapi/operations";
import { WebhookPayloadJson, type AddedAssetPayloadJson, type DeletedAssetPayloadJson, type UpdatedAssetPayloadJson } from "../../lib/openapi/schemas/webhooks";
import type { AddedAssetJson, DeletedAssetJson, UpdatedAssetJson, WebhookPayload } from "../../lib/webhooks/payload";
import added from "../../lib/webhooks/sample-events/asset_added.json";
import deleted from "../../lib/webhooks/sample-events/asset_deleted.json";
import updated from "../../lib/webhooks/sample-events/asset_updated.json";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";

const doc = openApiDocument();
const op = (id: string) => OPERATIONS.find((o) => o.operationId === id)!;

function refsIn(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => refsIn(v, out));
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") out.push(v);
      else refsIn(v, out);
    }
  }
  return out;
}

function resolve(ref: string): unknown {
  return ref
    .replace(/^#\//, "")
    .split("/")
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
}

describe("the OpenAPI document", () => {
  it("is OpenAPI 3.1 whose every $ref resolves and whose operationIds are unique", () => {
    expect(doc.openapi).toBe("3.1.0");
    const refs = refsIn(doc);
    expect(refs.length).toBeGreaterThan(100);
    expect(refs.filter((r) => resolve(r) === undefined)).toEqual([]);
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).flatMap((o) => ((o as { operationId?: string }).operationId ? [(o as { operationId: string }).operationId] : [])));
    expect(ids).toHaveLength(OPERATIONS.length);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("declares each path's parameters, and every response of every operation has a body schema or none by design", () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      const declared = ((item.parameters ?? []) as { name: string }[]).map((p) => p.name).sort();
      expect(declared, path).toEqual([...path.matchAll(/\{(\w+)\}/g)].map(([, n]) => n).sort());
    }
    for (const o of OPERATIONS) {
      const responses = (doc.paths[o.path][o.method] as { responses: Record<string, { content?: unknown }> }).responses;
      for (const [status, r] of Object.entries(responses)) {
        if (status === "204") expect(r.content, `${o.operationId} ${status}`).toBeUndefined();
        else expect(r.content, `${o.operationId} ${status}`).toBeDefined();
      }
      const errorStatuses = Object.keys(responses).filter((s) => Number(s) >= 400).map(Number);
      expect(errorStatuses.sort()).toEqual([...new Set(errorCodesOf(o).map((c) => ERROR_STATUS[c]))].sort());
    }
  });

  it("gives every error code to some operation, except the two no operation answers (documented in the introduction)", () => {
    const used = new Set(OPERATIONS.flatMap(errorCodesOf));
    const unused = (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((c) => !used.has(c));
    expect(unused.sort()).toEqual(["method_not_allowed", "route_not_found"]);
    expect(doc.info.description).toMatch(/route_not_found[\s\S]*method_not_allowed/);
  });

  it("marks the seven read routes a board access token may call, and only those", () => {
    const withBoardToken = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).flatMap(([method, o]) =>
        ((o as { security?: Record<string, unknown>[] }).security ?? []).some((s) => "boardAccessToken" in s) ? [`${method.toUpperCase()} ${path}`] : [],
      ),
    );
    expect(withBoardToken.sort()).toEqual(
      [
        "GET /v1/{slug}/boards",
        "GET /v1/{slug}/boards/{boardToken}",
        "GET /v1/{slug}/boards/{boardToken}/children",
        "GET /v1/{slug}/boards/{boardToken}/assets",
        "GET /v1/{slug}/assets",
        "GET /v1/{slug}/search",
        "GET /v1/{slug}/ai_search",
      ].sort(),
    );
  });

  it("is built from the very schemas the routes validate with (re-exported, not copied)", () => {
    expect(op("createBoard").body).toBe(boardsSchema.CreateBoardBody);
    expect(op("updateBoard").body).toBe(boardsSchema.UpdateBoardBody);
    expect(op("listBoardChildren").query).toBe(boardsSchema.BoardListQuery);
    expect(op("listBoardAssets").query).toBe(boardsSchema.BoardAssetsQuery);
    expect(op("listAssets").query).toBe(assetsSchema.AssetListQuery);
    expect(op("searchAssets").query).toBe(assetsSchema.SearchQuery);
    expect(op("updateAsset").body).toBe(assetSchema.PatchAssetBody);
    expect(op("revertAsset").body).toBe(assetSchema.RevertBody);
    expect(op("prepareUpload").body).toBe(prepareSchema.PrepareBody);
    expect(op("completeUpload").body).toBe(completeSchema.CompleteBody);
    expect(op("createBoardAccessToken").body).toBe(accessTokensSchema.CreateAccessTokenBody);
    expect(op("createTrigger").body).toBe(triggerSchema.CreateTriggerBody);
    expect(op("listTriggers").query).toBe(triggerSchema.ListTriggersQuery);
    expect(op("listDeliveries").query).toBe(triggerSchema.ListDeliveriesQuery);
  });

  it("documents request bodies as clients send them: the PATCH body's fields, version_number a positive integer", () => {
    const body = (doc.paths["/v1/{slug}/assets/{token}"].patch as { requestBody: { content: Record<string, { schema: any }> } }).requestBody.content["application/json"].schema;
    expect(Object.keys(body.properties.asset.properties).sort()).toEqual(
      ["comment", "create_version", "description", "fields", "media_type", "signed_storage_id", "tags", "text", "title", "version_number"].sort(),
    );
    expect(body.properties.asset.properties.version_number).toMatchObject({ type: "integer", exclusiveMinimum: 0 });
    const versions = (doc.paths["/v1/{slug}/assets/{token}/versions"].get as { parameters: { name: string; schema: { default?: string } }[] }).parameters;
    expect(versions.find((p) => p.name === "per_page")?.schema.default).toBe("100");
  });

  it("describes the webhook payloads, and the sample events validate against them", () => {
    // The bodies are built by lib/webhooks/payload.ts; its types and the documented ones must agree (checked by tsc).
    expectTypeOf<z.infer<typeof AddedAssetPayloadJson>>().toEqualTypeOf<AddedAssetJson>();
    expectTypeOf<z.infer<typeof DeletedAssetPayloadJson>>().toEqualTypeOf<DeletedAssetJson>();
    expectTypeOf<z.infer<typeof UpdatedAssetPayloadJson>>().toExtend<UpdatedAssetJson>();
    expectTypeOf<z.infer<typeof WebhookPayloadJson>>().toExtend<WebhookPayload>();
    expect(Object.keys(doc.webhooks).sort()).toEqual(["asset_added", "asset_deleted", "asset_updated"]);
    for (const sample of [added, updated, deleted]) expect(WebhookPayloadJson.safeParse(sample).success).toBe(true);
    expect(WebhookPayloadJson.safeParse({ ...deleted, asset: { ...deleted.asset, extra: true } }).success).toBe(false);
  });
});

describe("GET /v1/openapi.json", () => {
  beforeAll(async () => {
    await useTestDeps();
  });

  it("serves the document without a token, naming the server it was reached at, with CORS and the RateLimit headers", async () => {
    // Behind a TLS proxy Easel is told to trust (EASEL_TRUST_PROXY), the host and scheme it forwarded.
    vi.stubEnv("EASEL_TRUST_PROXY", "1");
    resetEnvCache();
    const res = await call(openapiRoute.GET, { path: "/v1/openapi.json", headers: { "x-forwarded-proto": "https", "x-forwarded-host": "assets.example.com" } });
    vi.unstubAllEnvs();
    resetEnvCache();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    // One URL, a document that changes with the release and the origin: caches must ask each time.
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(res.body).toEqual({ ...JSON.parse(JSON.stringify(doc)), servers: [{ url: "https://assets.example.com" }] });
  });

  it("answers other methods 405 with Allow", async () => {
    const res = await call(openapiRoute.POST, { method: "POST", path: "/v1/openapi.json" });
    expect([res.status, res.headers.get("allow"), res.body.errors[0].extensions.code]).toEqual([405, "GET", "method_not_allowed"]);
  });
});
