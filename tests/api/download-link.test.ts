import { eq } from "drizzle-orm";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import * as mediaRoute from "../../app/media/[...path]/route";
import * as downloadRoute from "../../app/v1/[slug]/assets/[token]/download_link/route";
import { assets, type Workspace } from "../../lib/db/schema";
import { DOWNLOAD_LINK_TTL_SECONDS } from "../../lib/media/download-link";
import { processAsset } from "../../lib/media/process-asset";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { expectError, expectValidation } from "../helpers/envelopes";
import { md5hex, newApiToken, newBoard, newBoardToken, newWorkspace, randomPng } from "../helpers/factories";
import { uploadAsset } from "../helpers/uploads";
import { patch, revert, writeBytes } from "../helpers/versions";

let deps: Awaited<ReturnType<typeof useTestDeps>>;
const day = 86_400_000;

const linkOf = (ws: Workspace, token: string, assetToken: string, query = "") =>
  call(downloadRoute.GET, { path: `/v1/${ws.slug}/assets/${assetToken}/download_link${query}`, token, params: { slug: ws.slug, token: assetToken } });

/** GET a handed-out media link through the media route, in-process. */
async function fetchMedia(link: string, headers: Record<string, string> = {}) {
  const u = new URL(link);
  const res = await mediaRoute.GET(new Request(u, { headers }), { params: Promise.resolve({ path: u.pathname.replace(/^\/media\//, "").split("/") }) });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

async function setup(plan: "team" | "free" = "team") {
  const ws = await newWorkspace(deps.db, { plan });
  return { ws, token: await newApiToken(deps.db, ws), board: await newBoard(deps.db, ws) };
}

beforeAll(async () => {
  deps = await useTestDeps();
});

describe("GET /v1/:slug/assets/:token/download_link", () => {
  it("hands out a one-hour no-store link to the head's original, also for an asset on no board", async () => {
    const { ws, token } = await setup();
    const bytes = await randomPng();
    const { asset } = await uploadAsset(ws, token, deps.store.s3, bytes);
    expect(asset.boards).toEqual([]);
    const res = await linkOf(ws, token, asset.token);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.body.data).toMatchObject({ version_number: 1, md5: md5hex(bytes), size: bytes.length, media_type: "image/png", title: asset.title });
    expect(Date.parse(res.body.data.expires_at) - deps.clock().getTime()).toBeGreaterThan((DOWNLOAD_LINK_TTL_SECONDS - 5) * 1000);
    expect(Date.parse(res.body.data.expires_at) - deps.clock().getTime()).toBeLessThanOrEqual(DOWNLOAD_LINK_TTL_SECONDS * 1000);
    const got = await fetchMedia(res.body.data.url);
    expect(got.status).toBe(200);
    expect(got.body.equals(bytes)).toBe(true);
    expect(got.headers.get("cache-control")).toBe("no-cache");
    const part = await fetchMedia(res.body.data.url, { range: "bytes=0-9" });
    expect([part.status, part.body.length]).toEqual([206, 10]);
  });

  it("gives the original of a processed image on no board, whose display_url is its large thumbnail", async () => {
    const { ws, token } = await setup();
    const png = await sharp({ create: { width: 1600, height: 900, channels: 3, background: { r: 10, g: 120, b: 30 } } }).png().toBuffer();
    const { asset } = await uploadAsset(ws, token, deps.store.s3, png);
    await processAsset(deps, deps.store.s3, asset.id);
    const [row] = await deps.db.select().from(assets).where(eq(assets.id, asset.id));
    expect(row.thumbnails.map((t) => t.size)).toContain("large");
    const link = (await linkOf(ws, token, asset.token)).body.data;
    expect(link).toMatchObject({ md5: md5hex(png), size: png.length, media_type: "image/png" });
    const got = await fetchMedia(link.url);
    expect([got.status, got.headers.get("content-type")]).toEqual([200, "image/png"]);
    expect(got.body.equals(png)).toBe(true);
  });

  it("the head's link follows the head; a stored version's link serves that version after writes and reverts", async () => {
    const { ws, token, board } = await setup();
    const first = await randomPng();
    const { asset } = await uploadAsset(ws, token, deps.store.s3, first, { collection_token: board.token });
    const headLink = (await linkOf(ws, token, asset.token)).body.data.url;
    const second = await randomPng();
    expect((await writeBytes(ws, token, deps.store.s3, asset.token, second)).status).toBe(200);
    expect((await fetchMedia(headLink)).body.equals(second)).toBe(true);
    const v1 = await linkOf(ws, token, asset.token, "?version=1");
    expect(v1.body.data).toMatchObject({ version_number: 1, md5: md5hex(first) });
    expect((await revert(ws, token, asset.token, { version_number: 1 })).status).toBe(200);
    // Head 3 carries version 1's bytes; version 2 (the second upload) is stored.
    const v2 = await linkOf(ws, token, asset.token, "?version=2");
    expect(v2.body.data).toMatchObject({ version_number: 2, md5: md5hex(second), size: second.length });
    expect((await fetchMedia(v2.body.data.url)).body.equals(second)).toBe(true);
    expect((await fetchMedia(v1.body.data.url)).body.equals(first)).toBe(true);
    expect((await fetchMedia(headLink)).body.equals(first)).toBe(true);
    // Asking for the head by its number is the head.
    expect((await linkOf(ws, token, asset.token, "?version=3")).body.data).toMatchObject({ version_number: 3, md5: md5hex(first) });
  });

  it("a link authorises only its own path and ends at its expiry", async () => {
    const { ws, token, board } = await setup();
    const bytes = await randomPng();
    const { asset } = await uploadAsset(ws, token, deps.store.s3, bytes, { collection_token: board.token });
    await patch(ws, token, asset.token, { create_version: true, title: "two" });
    const url = new URL((await linkOf(ws, token, asset.token, "?version=1")).body.data.url);
    const other = new URL(url);
    other.pathname = `/media/${asset.token}/original`;
    expect((await fetchMedia(other.toString())).status).toBe(401);
    deps.time.advance((DOWNLOAD_LINK_TTL_SECONDS + 1) * 1000);
    try {
      expect((await fetchMedia(url.toString())).status).toBe(401);
    } finally {
      deps.time.reset();
    }
  });

  it("answers version_not_found, asset_not_found, a validation error, and the plan's window", async () => {
    const { ws, token, board } = await setup("free");
    const { asset } = await uploadAsset(ws, token, deps.store.s3, await randomPng(), { collection_token: board.token });
    await patch(ws, token, asset.token, { create_version: true, title: "two" });
    expectError(await linkOf(ws, token, asset.token, "?version=3"), 404, "version_not_found");
    expectError(await linkOf(ws, token, asset.token, "?version=99"), 404, "version_not_found");
    expectValidation(await linkOf(ws, token, asset.token, "?version=0"), "version");
    expectValidation(await linkOf(ws, token, asset.token, "?version=1.5"), "version");
    expectError(await linkOf(ws, token, "nosuchasset"), 404, "asset_not_found");
    const other = await setup();
    expectError(await linkOf(other.ws, other.token, asset.token), 404, "asset_not_found");
    deps.time.advance(8 * day);
    try {
      expect(expectError(await linkOf(ws, token, asset.token, "?version=1"), 403, "revert_window_exceeded").revert_window_days).toBe(7);
      expect((await linkOf(ws, token, asset.token)).status).toBe(200);
    } finally {
      deps.time.reset();
    }
  });

  it("refuses board access tokens (they read media through their list routes' links)", async () => {
    const { ws, token, board } = await setup();
    const { asset } = await uploadAsset(ws, token, deps.store.s3, await randomPng(), { collection_token: board.token });
    expectError(await linkOf(ws, await newBoardToken(deps.db, ws, board.token), asset.token), 403, "board_scoped_token");
  });
});
