import crypto from "node:crypto";
import { DeleteObjectCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Db } from "../../lib/db";
import { assets, assetVersions, type Workspace } from "../../lib/db/schema";
import { setDeps, type Deps } from "../../lib/deps";
import { resetEnvCache } from "../../lib/env";
import { recordingJobSender } from "../../lib/jobs/send";
import { processAsset } from "../../lib/media/process-asset";
import { tempDir } from "../../lib/objectstore/testing/fixtures";
import { S3RVER_CREDENTIALS, startS3rver } from "../../lib/objectstore/testing/s3rver";
import { storageFor } from "../../lib/storage";
import { makeS3Client } from "../../lib/storage/s3/config";
import { verifyStorage } from "../../lib/storage/verify/verify-storage";
import { testDb } from "../helpers/db";
import { testClock } from "../helpers/deps";
import { newApiToken, newBoard, newWorkspace } from "../helpers/factories";
import { uploadToStore, writeVersionToStore } from "../helpers/store-uploads";

// `storage verify` against a real S3 bucket (s3rver, another S3 implementation, in process),
// reached as the server reaches it: EASEL_S3_BUCKET and the S3 driver. Originals are compared with
// the size and md5 the database recorded; derived files with the bucket's size and ETag.
const BUCKET = "easel-verify";
const time = testClock();
let db: Db;
let deps: Deps;
let s3rver: { origin: string; close: () => Promise<void> };
let bucket: S3Client;
let ws: Workspace;
let token: string;
let board: string;

beforeAll(async () => {
  s3rver = await startS3rver(tempDir("verify-s3rver"), [BUCKET]);
  for (const [name, value] of Object.entries({
    EASEL_S3_BUCKET: BUCKET,
    EASEL_S3_ENDPOINT: s3rver.origin,
    EASEL_S3_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
    EASEL_S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    EASEL_S3_FORCE_PATH_STYLE: "1",
  }))
    vi.stubEnv(name, value);
  resetEnvCache();
  bucket = makeS3Client({ endpoint: s3rver.origin, region: "us-east-1", bucket: BUCKET, forcePathStyle: true, credentials: S3RVER_CREDENTIALS, embedded: false });
  db = (await testDb()).db;
  deps = { db, clock: time.clock, jobs: recordingJobSender(), storage: (kind, baseUrl) => storageFor(kind, { baseUrl, db, clock: time.clock }) };
  setDeps(deps);
  ws = await newWorkspace(db, { plan: "team", storage: "s3" });
  token = await newApiToken(db, ws);
  board = (await newBoard(db, ws)).token;
});

afterAll(async () => {
  vi.unstubAllEnvs();
  resetEnvCache();
  setDeps(null);
  bucket?.destroy();
  await s3rver?.close();
});

const png = (seed: number) => sharp({ create: { width: 60 + seed, height: 40, channels: 3, background: { r: 30 * seed, g: 120, b: 60 } } }).png().toBuffer();
const rowOf = async (assetToken: string) => (await db.select().from(assets).where(eq(assets.token, assetToken)))[0];
const processed = async (assetToken: string) => expect((await processAsset(deps, deps.storage("s3", "http://unused.test"), (await rowOf(assetToken)).id)).status).toBe("processed");

async function verify() {
  const lines: string[] = [];
  const totals = await verifyStorage(db, { workspace: ws.slug, report: (l) => lines.push(l) });
  return { lines: lines.sort(), totals };
}

describe("storage verify on a real S3 bucket", () => {
  it("checks every original against the database and derived files against the bucket; names exactly the files deleted or replaced", async () => {
    const asset = await uploadToStore(ws, token, await png(1), { collection_token: board });
    await processed(asset.token);
    await writeVersionToStore(ws, token, asset.token, await png(2));
    await processed(asset.token);
    const head = await rowOf(asset.token);
    const [v1] = await db.select().from(assetVersions).where(eq(assetVersions.assetId, head.id));
    const keys = new Set([head.storageKey, v1.storageKey, ...head.thumbnails.map((t) => t.key), ...v1.thumbnails.map((t) => t.key)]);
    expect(head.thumbnails.length).toBeGreaterThan(0);
    expect(await verify()).toEqual({ lines: [], totals: expect.objectContaining({ checked: keys.size, missing: 0, corrupt: 0 }) });

    // v1's original deleted; the head's original replaced by other bytes of the same size; a v1 thumbnail deleted.
    await bucket.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: v1.storageKey }));
    const other = Buffer.alloc(head.size, 7);
    await bucket.send(new PutObjectCommand({ Bucket: BUCKET, Key: head.storageKey, Body: other }));
    await bucket.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: v1.thumbnails[0].key }));

    const { lines, totals } = await verify();
    expect(lines).toEqual(
      [
        `corrupt ${head.storageKey} (asset ${asset.token} v2): md5 ${crypto.createHash("md5").update(other).digest("hex")}, recorded ${head.md5}`,
        `missing ${v1.storageKey} (asset ${asset.token} v1)`,
        `missing ${v1.thumbnails[0].key} (asset ${asset.token} v1)`,
      ].sort(),
    );
    expect(totals).toMatchObject({ checked: keys.size, missing: 2, corrupt: 1 });
  }, 120_000);
});
