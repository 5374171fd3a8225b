import crypto from "node:crypto";
import { PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { Storage } from "@google-cloud/storage";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { signedConditionHeaders } from "../../lib/client/uploads/signed-conditions";
import type { Db } from "../../lib/db";
import type { Workspace } from "../../lib/db/schema";
import { setDeps } from "../../lib/deps";
import { resetEnvCache } from "../../lib/env";
import { recordingJobSender } from "../../lib/jobs/send";
import { layout, type Layout } from "../../lib/objectstore/disk/layout";
import { createBucket, openObject } from "../../lib/objectstore/disk/objects";
import { handleGcsRequest } from "../../lib/objectstore/gcs/handler";
import { startS3Store, tempDir, type StoreServer } from "../../lib/objectstore/testing/fixtures";
import { listen, type RunningServer } from "../../lib/objectstore/testing/node-server";
import { storageFor } from "../../lib/storage";
import { createGcsDriver } from "../../lib/storage/gcs/driver";
import { localObjects } from "../../lib/storage/gcs/local-objects";
import type { GcsSigner } from "../../lib/storage/gcs/signer";
import { PART_SIZE } from "../../lib/storage/limits";
import { makeS3Client } from "../../lib/storage/s3/config";
import { testDb } from "../helpers/db";
import { testClock } from "../helpers/deps";
import { newApiToken, newWorkspace } from "../helpers/factories";
import { complete, prepare } from "../helpers/uploads";

// With a real bucket (EASEL_S3_BUCKET, EASEL_GCS_BUCKET) the bucket's own rules decide whether an
// upload URL can replace its object: AWS S3 and GCS let it, until it expires (24 h), unless the
// URL is signed with a create-only precondition. The embedded store stands in for the bucket here,
// answering presigned and signed writes as S3 and GCS do (`presignedWrites` / `signedWrites:
// "replace"`). The client sends what the URL was signed with (signedConditionHeaders, as the
// browser uploader does).
const S3_BUCKET = "real-s3-bucket";
const GCS_BUCKET = "real-gcs-bucket";
const CREDENTIALS = { accessKeyId: "STANDINKEY", secretAccessKey: "stand-in-secret-access-key" };
const time = testClock();
let db: Db;
let s3: StoreServer;
let operator: S3Client;
let ws: Workspace;
let token: string;

const md5 = (b: Buffer) => crypto.createHash("md5").update(b).digest("hex");

async function stored(lay: Layout, bucket: string, key: string): Promise<Buffer> {
  const opened = await openObject(lay, bucket, key);
  if (!opened) throw new Error(`${bucket}/${key} is not stored`);
  return Buffer.concat(await opened.stream.toArray());
}

/** The object key a path-style S3 URL of the stand-in names. */
const keyOfUrl = (url: string) => decodeURIComponent(new URL(url).pathname.split(`/${S3_BUCKET}/`)[1]);

const put = (url: string, body: Buffer, headers: Record<string, string> = {}) => fetch(url, { method: "PUT", body: new Uint8Array(body), headers });

beforeAll(async () => {
  s3 = await startS3Store({ root: tempDir("real-s3"), credentials: async () => CREDENTIALS, clock: time.clock, presignedWrites: "replace" });
  await createBucket(s3.lay, S3_BUCKET, time.clock());
  for (const [name, value] of Object.entries({
    EASEL_S3_BUCKET: S3_BUCKET,
    EASEL_S3_ENDPOINT: s3.endpoint,
    EASEL_S3_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    EASEL_S3_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    EASEL_S3_FORCE_PATH_STYLE: "1",
  }))
    vi.stubEnv(name, value);
  resetEnvCache();
  operator = makeS3Client({ endpoint: s3.endpoint, region: "us-east-1", bucket: S3_BUCKET, forcePathStyle: true, credentials: CREDENTIALS, embedded: false });
  db = (await testDb()).db;
  setDeps({ db, clock: time.clock, jobs: recordingJobSender(), storage: (kind, baseUrl) => storageFor(kind, { baseUrl, db, clock: time.clock }) });
  ws = await newWorkspace(db, { plan: "team", storage: "s3" });
  token = await newApiToken(db, ws);
});

afterAll(async () => {
  vi.unstubAllEnvs();
  resetEnvCache();
  setDeps(null);
  operator?.destroy();
  await s3?.close();
});

describe("a real S3 bucket", () => {
  it("the stand-in lets an unconditional presigned PUT replace its object, as S3 does", async () => {
    const url = await getSignedUrl(operator, new PutObjectCommand({ Bucket: S3_BUCKET, Key: "probe/unconditional" }), { expiresIn: 600, signingDate: time.clock() });
    expect((await put(url, Buffer.from("first bytes"))).status).toBe(200);
    expect((await put(url, Buffer.from("other bytes"))).status).toBe(200);
    expect((await stored(s3.lay, S3_BUCKET, "probe/unconditional")).toString()).toBe("other bytes");
  });

  it("a second PUT to a completed upload's URL is refused (412) and the bytes stay the asset's", async () => {
    const bytes = crypto.randomBytes(64 * 1024);
    const p = await prepare(ws, token, { title: "Sealed", media_type: "application/octet-stream", size: bytes.length });
    expect(p.status, p.text).toBe(200);
    const url: string = p.body.data.upload_url;
    const headers = signedConditionHeaders(url);
    expect((await put(url, bytes, headers)).status).toBe(200);
    const c = await complete(ws, token, { signed_storage_id: p.body.data.signed_storage_id });
    expect(c.status, c.text).toBe(200);
    expect(c.body.data.md5).toBe(md5(bytes));

    const forged = crypto.randomBytes(bytes.length);
    const again = await put(url, forged, headers);
    expect(again.status).toBe(412);
    expect(await again.text()).toContain("<Code>PreconditionFailed</Code>");
    expect(md5(await stored(s3.lay, S3_BUCKET, keyOfUrl(url)))).toBe(md5(bytes));

    // The precondition is part of the signature: a client leaving it out is refused, not let through.
    expect(headers).toEqual({ "If-None-Match": "*" });
    expect(new URL(url).searchParams.get("X-Amz-SignedHeaders")).toBe("host;if-none-match");
    expect((await put(url, forged)).status).toBe(403);
    expect(md5(await stored(s3.lay, S3_BUCKET, keyOfUrl(url)))).toBe(md5(bytes));
  });

  it("CompleteMultipartUpload is create-only: assembled parts never replace an object at the key", async () => {
    const driver = storageFor("s3", { baseUrl: "http://unused.test", db, clock: time.clock });
    const key = `ws/${ws.id}/originals/taken-${crypto.randomBytes(4).toString("hex")}`;
    const existing = Buffer.from("bytes already at the key");
    await driver.write(key, existing, "application/octet-stream");
    const size = PART_SIZE + 1000;
    const prepared = await driver.prepareUpload({ key, size, contentType: "application/octet-stream", expiresAt: new Date(time.clock().getTime() + 3600_000) });
    expect(prepared.partUrls).toHaveLength(2);
    const body = crypto.randomBytes(size);
    for (const [i, url] of prepared.partUrls!.entries()) expect((await put(url, body.subarray(i * PART_SIZE, (i + 1) * PART_SIZE))).status).toBe(200);
    await driver.completeMultipart({ key, uploadId: prepared.multipartUploadId!, expectedParts: 2 });
    expect((await stored(s3.lay, S3_BUCKET, key)).equals(existing)).toBe(true);
  });
});

describe("a real GCS bucket", () => {
  const { privateKey, publicKey } = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
  const clientEmail = "uploads@easel-test.iam.gserviceaccount.com";
  let gcs: RunningServer;
  let lay: Layout;
  let signer: GcsSigner;

  beforeAll(async () => {
    lay = layout(tempDir("real-gcs"));
    await createBucket(lay, GCS_BUCKET, time.clock());
    gcs = await listen((req) => handleGcsRequest(req, { lay, identity: async () => ({ clientEmail, publicKey }), clock: time.clock, mountPath: "", signedWrites: "replace" }));
    const storage = new Storage({ projectId: "easel-test", apiEndpoint: gcs.origin, credentials: { client_email: clientEmail, private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString() } });
    signer = { storage, bucket: GCS_BUCKET, embedded: false, baseUrl: gcs.origin };
  });

  afterAll(() => gcs?.close());

  const driver = () => createGcsDriver(async () => ({ signer, objects: localObjects(lay, GCS_BUCKET, time.clock) }), time.clock);
  const prepareKey = async (key: string) => (await driver().prepareUpload({ key, size: 1, contentType: "application/octet-stream", expiresAt: new Date(time.clock().getTime() + 3600_000) })).uploadUrl;
  const start = (url: string, headers: Record<string, string>) => fetch(url, { method: "POST", headers: { "x-goog-resumable": "start", ...headers } });

  async function upload(url: string, bytes: Buffer) {
    const opened = await start(url, signedConditionHeaders(url));
    expect(opened.status).toBe(201);
    return put(opened.headers.get("location")!, bytes);
  }

  it("the stand-in lets an unconditional resumable URL replace its object, as GCS does", async () => {
    const [url] = await signer.storage.bucket(GCS_BUCKET).file("probe/unconditional").getSignedUrl({ version: "v4", action: "resumable", accessibleAt: time.clock(), expires: time.clock().getTime() + 600_000 });
    expect((await upload(url, Buffer.from("first bytes"))).status).toBe(200);
    expect((await upload(url, Buffer.from("other bytes"))).status).toBe(200);
    expect((await stored(lay, GCS_BUCKET, "probe/unconditional")).toString()).toBe("other bytes");
  });

  it("a completed upload's resumable URL opens no session that could replace it (412), and the bytes stay", async () => {
    const key = "ws/1/originals/sealed";
    const url = await prepareKey(key);
    expect(signedConditionHeaders(url)).toEqual({ "x-goog-if-generation-match": "0" });
    const bytes = crypto.randomBytes(300 * 1024);
    expect((await upload(url, bytes)).status).toBe(200);

    const again = await start(url, signedConditionHeaders(url));
    expect(again.status).toBe(412);
    expect(md5(await stored(lay, GCS_BUCKET, key))).toBe(md5(bytes));
    // Without the signed header the signature fails.
    expect((await start(url, {})).status).toBe(403);
  });

  it("a session opened before the object existed is refused at its last byte (412)", async () => {
    const key = "ws/1/originals/raced";
    const url = await prepareKey(key);
    const first = await start(url, signedConditionHeaders(url));
    const second = await start(url, signedConditionHeaders(url));
    expect([first.status, second.status]).toEqual([201, 201]);
    const bytes = Buffer.from("the first session's bytes");
    expect((await put(first.headers.get("location")!, bytes)).status).toBe(200);
    expect((await put(second.headers.get("location")!, Buffer.from("the second session's bytes"))).status).toBe(412);
    expect((await stored(lay, GCS_BUCKET, key)).equals(bytes)).toBe(true);
  });
});
