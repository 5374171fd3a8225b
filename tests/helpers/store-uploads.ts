import { expect } from "vitest";
import type { Workspace } from "../../lib/db/schema";
import { GCS_MOUNT_PATH } from "../../lib/objectstore/mounts";
import { complete, prepare } from "./uploads";
import { patch } from "./versions";

type Prepared = { upload_url: string; multipart_upload_id: string | null; part_size: number | null; part_urls: string[] | null; signed_storage_id: string };

/** Sends bytes over HTTP where a client would, per a prepare answer on a real store: presigned parts, a resumable session (start, then one PUT), or one PUT. */
export async function sendToStore(prep: Prepared, bytes: Buffer): Promise<void> {
  if (prep.part_urls && prep.part_size) {
    for (const [i, url] of prep.part_urls.entries()) {
      const put = await fetch(url, { method: "PUT", body: new Uint8Array(bytes.subarray(i * prep.part_size, (i + 1) * prep.part_size)) });
      expect(put.status, await put.text()).toBe(200);
    }
    return;
  }
  if (new URL(prep.upload_url).pathname.startsWith(GCS_MOUNT_PATH)) {
    const start = await fetch(prep.upload_url, { method: "POST", headers: { "x-goog-resumable": "start" } });
    expect(start.status, await start.text()).toBe(201);
    const put = await fetch(start.headers.get("location")!, { method: "PUT", body: new Uint8Array(bytes) });
    expect(put.status, await put.text()).toBe(200);
    return;
  }
  const put = await fetch(prep.upload_url, { method: "PUT", body: new Uint8Array(bytes) });
  expect(put.status, await put.text()).toBe(200);
}

/** upload_prepare → bytes to the store over HTTP → upload_complete; returns the asset JSON. */
export async function uploadToStore(ws: Workspace, token: string, bytes: Buffer, extra: Record<string, unknown> = {}) {
  const p = await prepare(ws, token, { title: "Upload", media_type: "image/png", size: bytes.length, ...extra });
  expect(p.status, p.text).toBe(200);
  await sendToStore(p.body.data, bytes);
  const c = await complete(ws, token, { signed_storage_id: p.body.data.signed_storage_id, multipart_upload_id: p.body.data.multipart_upload_id ?? undefined, collection_token: extra.collection_token });
  expect(c.status, c.text).toBe(200);
  return c.body.data;
}

/** A version write with new bytes sent to the store over HTTP (prepare → bytes → PATCH create_version). */
export async function writeVersionToStore(ws: Workspace, token: string, assetToken: string, bytes: Buffer) {
  const p = await prepare(ws, token, { media_type: "image/png", size: bytes.length });
  expect(p.status, p.text).toBe(200);
  await sendToStore(p.body.data, bytes);
  const res = await patch(ws, token, assetToken, { create_version: true, signed_storage_id: p.body.data.signed_storage_id });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}
