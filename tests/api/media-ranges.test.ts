import crypto from "node:crypto";
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as mediaRoute from "../../app/media/[...path]/route";
import type { Asset } from "../../lib/db/schema";
import { mediaLinker } from "../../lib/media/links";
import { movableClock, startS3Store, tempDir, type StoreServer } from "../../lib/objectstore/testing/fixtures";
import { getSecret } from "../../lib/secrets";
import { useTestDeps } from "../helpers/deps";
import { insertAsset, newWorkspace } from "../helpers/factories";

// One table of Range headers, sent to the embedded store's S3 GET (lib/objectstore/serve-object.ts)
// and to the media route (lib/media/serve-bytes.ts) for the same bytes: both read the header with
// lib/http/range.ts, so status, Content-Range and body agree row by row.

type Row = [range: string | undefined, size: number, status: 200 | 206 | 416, slice?: [number, number]];
const TABLE: Row[] = [
  [undefined, 100, 200],
  ["bytes=0-9", 100, 206, [0, 9]],
  ["bytes=90-", 100, 206, [90, 99]],
  ["bytes=-10", 100, 206, [90, 99]],
  ["bytes=-500", 100, 206, [0, 99]],
  ["bytes=50-500", 100, 206, [50, 99]],
  ["bytes=99-99", 100, 206, [99, 99]],
  ["bytes=100-", 100, 416],
  ["bytes=100-200", 100, 416],
  ["bytes=-0", 100, 416],
  ["bytes=0-", 0, 416],
  // Not one byte range as S3 reads it: the whole body.
  ["bytes=5-3", 100, 200],
  ["bytes=0-1,5-6", 100, 200],
  ["bytes=-", 100, 200],
  ["bytes=a-b", 100, 200],
  ["items=0-1", 100, 200],
];

type Answer = { status: number; contentRange: string | null; body: Buffer };

const credentials = { accessKeyId: "EASELRANGEKEY", secretAccessKey: "range-test-secret" };
let store: StoreServer;
let s3: S3Client;
let deps: Awaited<ReturnType<typeof useTestDeps>>;
const objects = new Map<number, { bytes: Buffer; asset: Asset }>();

beforeAll(async () => {
  deps = await useTestDeps();
  store = await startS3Store({ root: tempDir("ranges"), credentials: async () => credentials, clock: movableClock() });
  s3 = new S3Client({ endpoint: store.endpoint, region: "us-east-1", forcePathStyle: true, credentials, requestChecksumCalculation: "WHEN_REQUIRED", responseChecksumValidation: "WHEN_REQUIRED", maxAttempts: 1 });
  await s3.send(new CreateBucketCommand({ Bucket: "easel" }));
  const ws = await newWorkspace(deps.db);
  for (const size of new Set(TABLE.map((r) => r[1]))) {
    const bytes = crypto.randomBytes(size);
    const asset = await insertAsset(deps.db, ws, { size, mediaType: "application/octet-stream" });
    await deps.store[ws.storageKind].write(asset.storageKey, bytes, "application/octet-stream");
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: asset.storageKey, Body: bytes }));
    objects.set(size, { bytes, asset });
  }
});

afterAll(async () => {
  s3?.destroy();
  await store?.close();
});

async function fromStore(key: string, range: string | undefined): Promise<Answer> {
  try {
    const out = await s3.send(new GetObjectCommand({ Bucket: "easel", Key: key, Range: range }));
    return { status: out.$metadata.httpStatusCode ?? 0, contentRange: out.ContentRange ?? null, body: Buffer.from(await out.Body!.transformToByteArray()) };
  } catch (err) {
    const e = err as { name: string; $metadata?: { httpStatusCode?: number } };
    expect(e.name).toBe("InvalidRange");
    return { status: e.$metadata?.httpStatusCode ?? 0, contentRange: null, body: Buffer.alloc(0) };
  }
}

async function fromMedia(asset: Asset, range: string | undefined): Promise<Answer> {
  const link = mediaLinker("http://easel.test", await getSecret(deps.db, "media_url_key"), deps.clock())(asset.token, "original");
  const res = await mediaRoute.GET(new Request(link, { headers: range ? { range } : {} }), { params: Promise.resolve({ path: [asset.token, "original"] }) });
  return { status: res.status, contentRange: res.status === 206 ? res.headers.get("content-range") : null, body: Buffer.from(await res.arrayBuffer()) };
}

describe("Range on the store and on media links: one table, the same answers", () => {
  it.each(TABLE)("%s of %i bytes → %i", async (range, size, status, slice) => {
    const { bytes, asset } = objects.get(size)!;
    const store = await fromStore(asset.storageKey, range);
    const media = await fromMedia(asset, range);
    expect(store.status).toBe(status);
    expect(media.status).toBe(status);
    if (status === 416) return;
    const [start, end] = slice ?? [0, size - 1];
    const want = { status, contentRange: status === 206 ? `bytes ${start}-${end}/${size}` : null, body: bytes.subarray(start, end + 1) };
    expect(store).toEqual(want);
    expect(media).toEqual(want);
  });
});
