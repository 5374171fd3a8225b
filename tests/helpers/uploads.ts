import { expect } from "vitest";
import * as prepareRoute from "../../app/v1/[slug]/assets/upload_prepare/route";
import * as completeRoute from "../../app/v1/[slug]/assets/upload_complete/route";
import type { Workspace } from "../../lib/db/schema";
import { call } from "./call-route";
import type { MemoryStorage } from "./memory-storage";

export const prepare = (ws: Workspace, token: string | null, asset: Record<string, unknown>) =>
  call(prepareRoute.POST, { method: "POST", path: `/v1/${ws.slug}/assets/upload_prepare`, token, json: { asset }, params: { slug: ws.slug } });

export const complete = (ws: Workspace, token: string | null, asset: Record<string, unknown>) =>
  call(completeRoute.POST, { method: "POST", path: `/v1/${ws.slug}/assets/upload_complete`, token, json: { asset }, params: { slug: ws.slug } });

/** The storage key a prepare answer points at (memory storage URLs are memory://<key>[?part=n]). */
export const keyOf = (uploadUrl: string) => uploadUrl.replace(/^memory:\/\//, "").replace(/\?.*$/, "");

/** Puts the bytes where a client would, per the prepare answer (single object or parts). */
export function sendBytes(storage: MemoryStorage, prep: { upload_url: string; multipart_upload_id: string | null; part_size: number | null }, bytes: Buffer) {
  if (prep.multipart_upload_id) {
    const size = prep.part_size!;
    for (let i = 0; i * size < bytes.length; i++) storage.putPart(prep.multipart_upload_id, i + 1, bytes.subarray(i * size, (i + 1) * size));
  } else storage.putObject(keyOf(prep.upload_url), bytes);
}

/** prepare → bytes → complete through the routes; returns the asset JSON and the prepare answer. */
export async function uploadAsset(ws: Workspace, token: string, storage: MemoryStorage, bytes: Buffer, extra: Record<string, unknown> = {}) {
  const p = await prepare(ws, token, { title: "Upload", media_type: "image/png", size: bytes.length, ...extra });
  expect(p.status, p.text).toBe(200);
  sendBytes(storage, p.body.data, bytes);
  const c = await complete(ws, token, { signed_storage_id: p.body.data.signed_storage_id, multipart_upload_id: p.body.data.multipart_upload_id ?? undefined, collection_token: extra.collection_token });
  expect(c.status, c.text).toBe(200);
  return { asset: c.body.data, prep: p.body.data };
}
