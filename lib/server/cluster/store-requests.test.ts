import crypto from "node:crypto";
import http from "node:http";
import path from "node:path";
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, CreateBucketCommand } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, expect, it } from "vitest";
import { layout } from "../../objectstore/disk/layout";
import { S3_MOUNT_PATH } from "../../objectstore/mounts";
import { handleS3Request } from "../../objectstore/s3/handler";
import { movableClock, storedBytes, tempDir } from "../../objectstore/testing/fixtures";
import { inProcessRequestHandler } from "../../storage/s3/in-process-handler";
import { answerWith } from "../node-bridge";
import { servedByStoreOwner } from "./store-requests";

// A member worker's own S3 calls reach the store's owner over its private socket; the owner's
// own calls are answered in its process. Which one is looked up per call.
const credentials = { accessKeyId: "EASELMEMBER", secretAccessKey: "member-secret" };
const clock = movableClock();
const dir = tempDir("store-requests");
const lay = layout(path.join(dir, "objects"));
const socketPath = path.join(dir, "owner.sock");
const STATE = Symbol.for("easel.cluster");
const serve = (req: Request) => handleS3Request(req, { lay, credentials: async () => credentials, clock, mountPath: S3_MOUNT_PATH });
let ownerRequests = 0;
let localRequests = 0;
let owner: http.Server;

beforeAll(async () => {
  owner = http.createServer((req, res) => {
    ownerRequests++;
    void answerWith(serve, req, res);
  });
  await new Promise<void>((resolve) => owner.listen(socketPath, resolve));
  process.env.EASEL_CLUSTER_SOCKET = socketPath;
  (globalThis as Record<symbol, unknown>)[STATE] = { role: "member" };
});

afterAll(async () => {
  delete process.env.EASEL_CLUSTER_SOCKET;
  delete (globalThis as Record<symbol, unknown>)[STATE];
  await new Promise((resolve) => owner.close(resolve));
});

function client() {
  const handler = servedByStoreOwner((req) => {
    localRequests++;
    return serve(req);
  });
  return new S3Client({
    endpoint: `http://easel.invalid:9${S3_MOUNT_PATH}`,
    region: "us-east-1",
    forcePathStyle: true,
    credentials,
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    maxAttempts: 1,
    requestHandler: inProcessRequestHandler(handler),
  });
}

it("a member's requests are answered by the owner over its socket, bodies intact both ways", async () => {
  const s3 = client();
  const body = crypto.randomBytes(3 * 1024 * 1024 + 17);
  await s3.send(new CreateBucketCommand({ Bucket: "easel" }));
  await s3.send(new PutObjectCommand({ Bucket: "easel", Key: "from-member.bin", Body: body }));
  expect((await storedBytes(lay, "from-member.bin")).equals(body)).toBe(true);
  expect((await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "from-member.bin" }))).ContentLength).toBe(body.length);
  const read = await s3.send(new GetObjectCommand({ Bucket: "easel", Key: "from-member.bin", Range: "bytes=5-9" }));
  expect(Buffer.from(await read.Body!.transformToByteArray()).equals(body.subarray(5, 10))).toBe(true);
  expect([ownerRequests, localRequests]).toEqual([4, 0]);
});

it("once this worker owns the store, it answers its own requests", async () => {
  (globalThis as Record<symbol, unknown>)[STATE] = { role: "owner" };
  const before = ownerRequests;
  const s3 = client();
  await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "from-member.bin" }));
  expect([ownerRequests - before, localRequests]).toEqual([0, 1]);
});

it("an owner that cannot be reached fails the call (the driver answers storage_unavailable)", async () => {
  (globalThis as Record<symbol, unknown>)[STATE] = { role: "member" };
  process.env.EASEL_CLUSTER_SOCKET = path.join(dir, "nobody.sock");
  const s3 = client();
  process.env.EASEL_CLUSTER_SOCKET = socketPath;
  await expect(s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "from-member.bin" }))).rejects.toMatchObject({ code: "ENOENT" });
});
