import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import * as mediaRoute from "../../app/media/[...path]/route";
import type { Board, Workspace } from "../../lib/db/schema";
import { mediaLinker } from "../../lib/media/links";
import { processAsset } from "../../lib/media/process-asset";
import { getSecret } from "../../lib/secrets";
import { useTestDeps } from "../helpers/deps";
import { newApiToken, newBoard, newBoardToken, newWorkspace } from "../helpers/factories";
import { uploadAsset } from "../helpers/uploads";
import { patch, versions } from "../helpers/versions";

let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let token: string;
let board: Board;
const day = 86_400_000;

beforeAll(async () => {
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db, { plan: "free" });
  token = await newApiToken(deps.db, ws);
  board = await newBoard(deps.db, ws);
});

/** GET a media link (absolute or path) through the media route, in-process. */
async function get(link: string, headers: Record<string, string> = {}) {
  const u = new URL(link, "http://easel.test");
  const segments = u.pathname.replace(/^\/media\//, "").split("/");
  const res = await mediaRoute.GET(new Request(u, { headers }), { params: Promise.resolve({ path: segments }) });
  return { status: res.status, type: res.headers.get("content-type"), headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

async function processedImage(width = 1000, height = 500) {
  const png = await sharp({ create: { width, height, channels: 3, background: { r: 20, g: 90, b: 200 } } }).png().toBuffer();
  const { asset } = await uploadAsset(ws, token, deps.store.s3, png, { collection_token: board.token });
  await processAsset(deps, deps.store.s3, asset.id);
  return { asset, png };
}

describe("media links", () => {
  it("serve the display image and the original by signed link, with ranges", async () => {
    const { asset, png } = await processedImage();
    const { asset: fresh } = await uploadAsset(ws, token, deps.store.s3, png, { collection_token: board.token }); // unprocessed: display is the original
    const display = await get(asset.display_url);
    expect([display.status, display.type]).toEqual([200, "image/jpeg"]);
    expect((await sharp(display.body).metadata()).width).toBe(1000);
    const original = await get(fresh.display_url);
    expect(original.body.equals(png)).toBe(true);
    const part = await get(fresh.display_url, { range: "bytes=0-9" });
    expect([part.status, part.headers.get("content-range"), part.body.length]).toEqual([206, `bytes 0-9/${png.length}`, 10]);
    expect((await get(fresh.display_url, { range: "bytes=999999-" })).status).toBe(416);
  });

  it("refuse a tampered or expired link, and accept ?token= only for a board holding the asset", async () => {
    const { asset } = await processedImage();
    const tampered = asset.display_url.replace(/sig=(.)/, (_: string, c: string) => `sig=${c === "A" ? "B" : "A"}`);
    expect((await get(tampered)).status).toBe(401);
    const bare = asset.display_url.split("?")[0];
    expect((await get(bare)).status).toBe(401);
    expect((await get(`${bare}?token=${await newBoardToken(deps.db, ws, board.token)}`)).status).toBe(200);
    const other = await newBoard(deps.db, ws);
    expect((await get(`${bare}?token=${await newBoardToken(deps.db, ws, other.token)}`)).status).toBe(401);
    deps.time.advance(8 * day);
    try {
      expect((await get(asset.display_url)).status).toBe(401);
    } finally {
      deps.time.reset();
    }
  });

  it("past the revert window on a gated plan: thumbnails are watermarked previews ≤ 320 px, the original is withheld", async () => {
    const { asset } = await processedImage(1600, 900);
    await patch(ws, token, asset.token, { create_version: true, title: "next" });
    deps.time.advance(8 * day);
    try {
      const v1 = (await versions(ws, token, asset.token)).body.data[0];
      expect(v1).toMatchObject({ version_number: 1, revertable: false, primary_storage_id: null });
      const large = v1.thumbnails.find((t: { size: string }) => t.size === "large");
      expect(large.url).toContain("/v1/thumb-large-preview");
      expect(large.width).toBeLessThanOrEqual(320);
      const preview = await get(large.url);
      expect(preview.status).toBe(200);
      const meta = await sharp(preview.body).metadata();
      expect([meta.format, meta.width]).toEqual(["jpeg", 320]);
      const head = await get(`/media/${asset.token}/thumb-large`, {});
      expect(head.status).toBe(401); // unsigned
      // A correctly signed link to the withheld original still gets nothing.
      const link = mediaLinker("http://easel.test", await getSecret(deps.db, "media_url_key"), deps.clock());
      expect((await get(link(asset.token, "original", { version: 1 }))).status).toBe(404);
      expect((await get(link(asset.token, "original", { version: 2 }))).status).toBe(404); // no version 2 stored yet
    } finally {
      deps.time.reset();
    }
  });
});
