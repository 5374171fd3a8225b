import { expect } from "vitest";
import * as revertRoute from "../../app/v1/[slug]/assets/[token]/revert/route";
import * as assetRoute from "../../app/v1/[slug]/assets/[token]/route";
import * as versionsRoute from "../../app/v1/[slug]/assets/[token]/versions/route";
import type { Workspace } from "../../lib/db/schema";
import { call } from "./call-route";
import type { TestStorage } from "./test-storage";
import { prepare } from "./uploads";

export const patch = (ws: Workspace, token: string, assetToken: string, asset: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call(assetRoute.PATCH, { method: "PATCH", path: `/v1/${ws.slug}/assets/${assetToken}`, token, json: { asset }, headers, params: { slug: ws.slug, token: assetToken } });

export const revert = (ws: Workspace, token: string, assetToken: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call(revertRoute.POST, { method: "POST", path: `/v1/${ws.slug}/assets/${assetToken}/revert`, token, json: body, headers, params: { slug: ws.slug, token: assetToken } });

export const versions = (ws: Workspace, token: string, assetToken: string, query = "") =>
  call(versionsRoute.GET, { path: `/v1/${ws.slug}/assets/${assetToken}/versions${query}`, token, params: { slug: ws.slug, token: assetToken } });

/** A version-writing PATCH with new bytes (prepare → bytes → PATCH). */
export async function writeBytes(ws: Workspace, token: string, storage: TestStorage, assetToken: string, bytes: Buffer, extra: Record<string, unknown> = {}) {
  const p = await prepare(ws, token, { media_type: "image/png", size: bytes.length });
  expect(p.status, p.text).toBe(200);
  await storage.send(p.body.data, bytes);
  return patch(ws, token, assetToken, { create_version: true, signed_storage_id: p.body.data.signed_storage_id, ...extra });
}
