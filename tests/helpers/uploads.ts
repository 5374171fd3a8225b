import { expect } from "vitest";
import * as completeRoute from "../../app/v1/[slug]/assets/upload_complete/route";
import * as prepareRoute from "../../app/v1/[slug]/assets/upload_prepare/route";
import type { Workspace } from "../../lib/db/schema";
import { call } from "./call-route";
import type { TestStorage } from "./test-storage";

export const prepare = (ws: Workspace, token: string | null, asset: Record<string, unknown>) =>
  call(prepareRoute.POST, { method: "POST", path: `/v1/${ws.slug}/assets/upload_prepare`, token, json: { asset }, params: { slug: ws.slug } });

export const complete = (ws: Workspace, token: string | null, asset: Record<string, unknown>) =>
  call(completeRoute.POST, { method: "POST", path: `/v1/${ws.slug}/assets/upload_complete`, token, json: { asset }, params: { slug: ws.slug } });

export { keyOf } from "./test-storage";

/** prepare → bytes to the store's presigned URLs → complete through the routes; returns the asset JSON and the prepare answer. */
export async function uploadAsset(ws: Workspace, token: string, storage: TestStorage, bytes: Buffer, extra: Record<string, unknown> = {}) {
  const p = await prepare(ws, token, { title: "Upload", media_type: "image/png", size: bytes.length, ...extra });
  expect(p.status, p.text).toBe(200);
  await storage.send(p.body.data, bytes);
  const c = await complete(ws, token, { signed_storage_id: p.body.data.signed_storage_id, multipart_upload_id: p.body.data.multipart_upload_id ?? undefined, collection_token: extra.collection_token });
  expect(c.status, c.text).toBe(200);
  return { asset: c.body.data, prep: p.body.data };
}
