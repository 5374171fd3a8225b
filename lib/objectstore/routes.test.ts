import crypto from "node:crypto";
import { GetObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { beforeAll, describe, expect, it } from "vitest";
import * as gcsRoute from "@/app/storage/gcs/[[...path]]/route";
import * as s3Route from "@/app/storage/s3/[[...path]]/route";
import { useTestDeps } from "../../tests/helpers/deps";
import { storageFor } from "../storage";
import { makeS3Client } from "../storage/s3/config";
import { createBucket } from "./disk/objects";
import { embeddedS3Credentials } from "./identity";
import { embeddedLayout } from ".";

// The route files as Next.js calls them (in process): they serve the embedded store from
// EASEL_DATA_DIR with the app's database (its keys) and clock.
const ORIGIN = "http://easel.test";
let deps: Awaited<ReturnType<typeof useTestDeps>>;

beforeAll(async () => {
  deps = await useTestDeps();
  await createBucket(embeddedLayout(), "easel", deps.clock());
});

describe("app/storage routes", () => {
  it("/storage/s3 takes a presigned PUT and serves a presigned GET, keys from the database", async () => {
    const client = makeS3Client({ endpoint: `${ORIGIN}/storage/s3`, region: "us-east-1", bucket: "easel", forcePathStyle: true, credentials: await embeddedS3Credentials(deps.db), embedded: true });
    const options = { expiresIn: 60, signingDate: deps.clock() };
    const putUrl = await getSignedUrl(client, new PutObjectCommand({ Bucket: "easel", Key: "ws/route.txt" }), options);
    const put = await s3Route.PUT(new Request(putUrl, { method: "PUT", body: "via the route", headers: { host: "easel.test" } }));
    expect(put.status).toBe(200);
    expect(put.headers.get("etag")).toBe(`"${crypto.createHash("md5").update("via the route").digest("hex")}"`);

    const getUrl = await getSignedUrl(client, new GetObjectCommand({ Bucket: "easel", Key: "ws/route.txt" }), options);
    const get = await s3Route.GET(new Request(getUrl, { headers: { host: "easel.test" } }));
    expect(get.status).toBe(200);
    expect(await get.text()).toBe("via the route");

    const refused = await s3Route.PUT(new Request(putUrl.replace("ws/route.txt", "ws/other.txt"), { method: "PUT", body: "x", headers: { host: "easel.test" } }));
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("SignatureDoesNotMatch");
    expect((await s3Route.OPTIONS(new Request(putUrl, { method: "OPTIONS", headers: { origin: "https://app.example" } }))).headers.get("access-control-expose-headers")).toContain("ETag");
  });

  it("/storage/gcs opens a resumable session from the driver's signed URL and takes the bytes", async () => {
    const driver = storageFor("gcs", { baseUrl: ORIGIN, db: deps.db, clock: deps.clock });
    const bytes = crypto.randomBytes(1000);
    const prepared = await driver.prepareUpload({ key: "ws/route.bin", size: bytes.length, contentType: "application/octet-stream", expiresAt: new Date(deps.clock().getTime() + 3600_000) });
    const start = await gcsRoute.POST(new Request(prepared.uploadUrl, { method: "POST", headers: { "x-goog-resumable": "start", host: "easel.test" } }));
    expect(start.status).toBe(201);
    const session = start.headers.get("location") as string;
    expect(session.startsWith(`${ORIGIN}/storage/gcs/easel/ws/route.bin?upload_id=`)).toBe(true);
    const put = await gcsRoute.PUT(new Request(session, { method: "PUT", body: bytes, headers: { host: "easel.test" } }));
    expect(put.status).toBe(200);
    expect(await driver.md5("ws/route.bin")).toBe(crypto.createHash("md5").update(bytes).digest("hex"));

    deps.time.advance(2 * 3600_000);
    try {
      const late = await gcsRoute.POST(new Request(prepared.uploadUrl, { method: "POST", headers: { "x-goog-resumable": "start", host: "easel.test" } }));
      expect(late.status).toBe(403);
    } finally {
      deps.time.reset();
    }
  });
});
